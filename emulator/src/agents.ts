import type { AgentBuilder, Faults } from './context.js';

/** How long a failing warmup runs before its upstream step errors (ms). */
export const WARMUP_FAIL_AFTER_MS = 50;

/** An {@link AgentBuilder} that can also release its timers and hanging warmups. */
export interface ManagedAgentBuilder extends AgentBuilder {
  /** Resolves every pending build and hanging warmup (with a cold result) and clears timers. */
  close(): void;
}

/**
 * Emulates building robots' reasoning agents. A build takes `agentBuildMs` and is shared: a warmup
 * and the first realtime task arriving while a build runs wait for the same build. Warmup faults
 * (`fail`, `hang`) touch only the warmup request: a failed or hanging warmup does not build the
 * agent, so the first task later pays the full build time as if no warmup had happened.
 */
export function createAgentBuilder(opts: { agentBuildMs: number; faults: () => Faults }): ManagedAgentBuilder {
  const built = new Set<string>();
  const inflight = new Map<string, Promise<void>>();
  const timers = new Set<{ timer: NodeJS.Timeout; finish: () => void }>();
  const hanging = new Set<(value: boolean) => void>();
  // Bumped by reset(): a build that started before a reset must not mark the robot warm after it.
  let generation = 0;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          timers.delete(entry);
          resolve();
        }, ms),
        finish: resolve,
      };
      timers.add(entry);
    });

  const build = (robotId: string): Promise<void> => {
    const running = inflight.get(robotId);
    if (running) return running;
    const gen = generation;
    const promise = wait(opts.agentBuildMs).then(() => {
      if (gen === generation) built.add(robotId);
      if (inflight.get(robotId) === promise) inflight.delete(robotId);
    });
    inflight.set(robotId, promise);
    return promise;
  };

  return {
    async warmup(robotId) {
      const fault = opts.faults().warmup;
      if (fault === 'hang') return new Promise<boolean>((resolve) => hanging.add(resolve));
      if (fault === 'fail') {
        // The upstream step (skill sync) errors after a short while; the error is swallowed.
        await wait(Math.min(WARMUP_FAIL_AFTER_MS, opts.agentBuildMs));
        return false;
      }
      if (built.has(robotId)) return true;
      await build(robotId);
      return built.has(robotId);
    },
    async ensureBuilt(robotId) {
      if (built.has(robotId)) return { paidMs: 0 };
      const started = performance.now();
      await build(robotId);
      return { paidMs: Math.round(performance.now() - started) };
    },
    isBuilt: (robotId) => built.has(robotId),
    reset() {
      generation++;
      built.clear();
      inflight.clear();
    },
    close() {
      generation++;
      for (const t of timers) {
        clearTimeout(t.timer);
        t.finish();
      }
      timers.clear();
      for (const resolve of hanging) resolve(false);
      hanging.clear();
      inflight.clear();
    },
  };
}
