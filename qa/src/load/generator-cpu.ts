import os from 'node:os';
import { METRICS, type MetricSample } from './metrics.js';

/** Above this share of the machine's CPU, the load generator (not the service) may be what was measured. */
export const SATURATED_CPU_PCT = 85;

/** How often the generator's CPU is sampled while calls run (ms). */
export const CPU_SAMPLE_INTERVAL_MS = 2000;

function machineTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    const all = t.user + t.nice + t.sys + t.idle + t.irq;
    total += all;
    busy += all - t.idle;
  }
  return { busy, total };
}

/**
 * Samples the generator's CPU (this process's, every thread, plus its caller processes') as a share
 * of the whole machine (all cores: 100 % = every core busy), and the machine's busy share (os.cpus),
 * every `intervalMs` while at least one call runs. `onSample` gets `voice.generator_cpu_pct` and
 * `voice.machine_cpu_pct`. One sampler per process serves every virtual user in it.
 */
export class GeneratorCpu {
  #active = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #last = { cpu: 0, at: performance.now(), machine: machineTimes() };
  readonly #cores = os.availableParallelism?.() ?? os.cpus().length;

  /**
   * @param otherMicros CPU time (µs) of the generator's other processes so far (its caller
   *   processes), added to this one's.
   */
  constructor(
    private readonly onSample: (samples: MetricSample[]) => void,
    private readonly otherMicros: () => number = () => 0,
    private readonly intervalMs = CPU_SAMPLE_INTERVAL_MS,
  ) {}

  #cpuMicros(): number {
    const own = process.cpuUsage();
    return own.user + own.system + this.otherMicros();
  }

  /** A call started: sampling runs while any call does. */
  enter(): void {
    if (this.#active++ === 0) {
      this.#last = { cpu: this.#cpuMicros(), at: performance.now(), machine: machineTimes() };
      this.#timer = setInterval(() => this.sample(), this.intervalMs);
      this.#timer.unref();
    }
  }

  /** A call ended: the last one takes a final sample and stops the timer. */
  leave(): void {
    if (this.#active === 0) return;
    if (--this.#active === 0) {
      this.sample();
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /** Calls running now. */
  get active(): number {
    return this.#active;
  }

  /** Takes a sample since the last one (nothing when under 100 ms passed). */
  sample(): void {
    const now = performance.now();
    const wallMs = now - this.#last.at;
    if (wallMs < 100) return;
    const cpu = this.#cpuMicros();
    const machine = machineTimes();
    const busy = machine.busy - this.#last.machine.busy;
    const total = machine.total - this.#last.machine.total;
    const generatorPct = ((cpu - this.#last.cpu) / 1000 / wallMs / this.#cores) * 100;
    this.#last = { cpu, at: now, machine };
    const samples: MetricSample[] = [{ kind: 'histogram', name: METRICS.generatorCpuPct, value: Math.round(generatorPct * 10) / 10 }];
    if (total > 0) samples.push({ kind: 'histogram', name: METRICS.machineCpuPct, value: Math.round((busy / total) * 1000) / 10 });
    this.onSample(samples);
  }
}
