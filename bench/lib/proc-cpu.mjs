// CPU time of another process and of the machine, for benchmarks that measure a share of it:
// kb-voice-qa's one CPU reader (kb-voice-qa/load), in the seconds the benchmarks report.
import { ensureBuilt } from './common.mjs';

ensureBuilt();
const { machineCpuMicros, processCpuMicros } = await import('kb-voice-qa/load');

/** User+system CPU seconds of process `pid` so far (null where there is no /proc, or once it exited). */
export function procCpuSeconds(pid) {
  const micros = processCpuMicros(pid);
  return micros === null ? null : micros / 1e6;
}

/** CPU seconds the whole machine has been busy so far (all cores). */
export const machineBusySeconds = () => machineCpuMicros().busy / 1e6;
