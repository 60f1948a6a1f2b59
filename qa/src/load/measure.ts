/**
 * `kb-voice-qa/load`: what a load run measures with, for a Node program of your own (and the
 * repository's benchmarks, bench/, which take these instead of their own copies): the percentile
 * of the reports (nearest rank) and the CPU readers of the load figures.
 */
export { percentile } from '../stats.js';
export { machineCpuMicros, processCpuMicros, processTreeCpuMicros } from './proc-cpu.js';
