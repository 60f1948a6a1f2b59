import os from 'node:os';
import { METRICS, type MetricSample } from './metrics.js';
import { machineCpuMicros } from './proc-cpu.js';

/** Above this share of the machine's CPU, the load generator (not the service) may be what was measured. */
export const SATURATED_CPU_PCT = 85;

/** How often the generator's CPU is sampled while calls run (ms). */
export const CPU_SAMPLE_INTERVAL_MS = 2000;

/** This process's CPU time so far (µs), every thread. */
export function ownCpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * Samples the generator's CPU (by default this process's; see the constructor) as a share
 * of the whole machine (all cores: 100 % = every core busy), and the machine's busy share (os.cpus),
 * every `intervalMs` while at least one call runs. `onSample` gets `voice.generator_cpu_pct` and
 * `voice.machine_cpu_pct`. One sampler per process serves every virtual user in it.
 */
export class GeneratorCpu {
  #active = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #last = { cpu: 0, at: performance.now(), machine: machineCpuMicros() };
  readonly #cores = os.availableParallelism?.() ?? os.cpus().length;

  /**
   * @param generatorMicros CPU time (µs) the generator used so far, all its processes; default
   *   this process's.
   */
  constructor(
    private readonly onSample: (samples: MetricSample[]) => void,
    private readonly generatorMicros: () => number = ownCpuMicros,
    private readonly intervalMs = CPU_SAMPLE_INTERVAL_MS,
  ) {}

  #cpuMicros(): number {
    return this.generatorMicros();
  }

  /** A call started: sampling runs while any call does. */
  enter(): void {
    if (this.#active++ === 0) {
      this.#last = { cpu: this.#cpuMicros(), at: performance.now(), machine: machineCpuMicros() };
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
    const machine = machineCpuMicros();
    const busy = machine.busy - this.#last.machine.busy;
    const total = machine.total - this.#last.machine.total;
    // A descendant that exited since the last sample leaves the sum until it is waited for: never below 0.
    const generatorPct = Math.max(0, ((cpu - this.#last.cpu) / 1000 / wallMs / this.#cores) * 100);
    this.#last = { cpu, at: now, machine };
    const samples: MetricSample[] = [{ kind: 'histogram', name: METRICS.generatorCpuPct, value: Math.round(generatorPct * 10) / 10 }];
    if (total > 0) samples.push({ kind: 'histogram', name: METRICS.machineCpuPct, value: Math.round((busy / total) * 1000) / 10 });
    this.onSample(samples);
  }
}
