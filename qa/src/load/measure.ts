/**
 * `kb-voice-qa/load`: what a load run measures and drives callers with, for a Node program of your
 * own (and the repository's benchmarks, bench/, which take these instead of their own copies): the
 * percentile of the reports (nearest rank), the CPU readers of the load figures, and the forked
 * caller-process layer (`ForkedProcess` in the parent, `serveParent` in the child) that kb-voice-qa's
 * Artillery caller process and the capacity bench's caller processes are built on.
 */
export { percentile } from '../stats.js';
export { machineCpuMicros, processCpuMicros, processTreeCpuMicros } from './proc-cpu.js';
export { FORKED_KILL_AFTER_MS, ForkedProcess, type ForkedExit, type ForkedFailure, type ForkedOptions } from './forked.js';
export { serveParent, toParent } from './forked-child.js';
