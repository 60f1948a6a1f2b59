#!/usr/bin/env node
// Benchmark: 32 VoiceSessions (Node, @roamhq/wrtc) connected to one emulator process, which is
// killed (SIGKILL: no goodbye, the path goes silent) and started again on the same port 2 s
// later. Every client notices the dead path by heartbeat and retries by new offers; the figure is
// how their offers spread over time, with the default jittered ReconnectPolicy side by side with a
// lockstep policy (the old backoff: at once, then 250 ms doubling to 2 s, no jitter).
// Reported per policy: the most offers in any 100 ms (over the whole recovery, and from the
// restart on) and the p10-p90 spread of the moments the clients were connected again.
import { fmtMs, log, runBenchmark, sleep, withTimeout } from './lib/common.mjs';
import { startEmulatorProcess } from './lib/emulator-process.mjs';
import { loadClient, loadEmulator, loadWrtc } from './lib/kb.mjs';
import { percentile } from './lib/stats.mjs';

const CLIENTS = Number(process.env.BENCH_JITTER_CLIENTS ?? 32);
const DOWN_MS = 2000;
const WINDOW_MS = 100;

/** The backoff before jitter existed: every client retries at the same moments. */
const lockstep = { nextRetryDelayMs: ({ retryCount }) => (retryCount === 0 ? 0 : Math.min(2000, 250 * 2 ** (retryCount - 1))) };

/** Most entries of `times` (ms, sorted) within any `window` ms. */
function peak(times, window) {
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= window) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

async function round(name, policy) {
  const { VoiceSession, createApiClient } = await loadClient();
  const { FakeMicrophone } = await loadEmulator();
  const wrtc = await loadWrtc();
  let emulator = await startEmulatorProcess({ agentBuildMs: 0 });
  const port = Number(new URL(emulator.url).port);
  const offers = []; // [client, ms since the crash, ok]
  let crashAt = Infinity;
  const sessions = [];
  const mics = [];
  const errors = [];
  try {
    for (let i = 0; i < CLIENTS; i++) {
      const base = createApiClient({ baseUrl: emulator.url, apiKey: emulator.apiKey, retry: 0 });
      const api = {
        realtime: {
          ...base.realtime,
          connect: (...args) => {
            const t = performance.now() - crashAt;
            return base.realtime.connect(...args).then(
              (r) => (t >= 0 && offers.push([i, t, true]), r),
              (e) => { if (t >= 0) offers.push([i, t, false]); throw e; },
            );
          },
        },
      };
      const mic = new FakeMicrophone();
      mics.push(mic);
      const session = new VoiceSession({
        aiId: emulator.fixtures.robotId, api, wrtc, microphone: mic.open, language: 'en', levelMeter: () => undefined,
        reconnectTimeoutMs: 30_000, ...(policy ? { reconnectPolicy: policy } : {}),
      });
      session.on('error', (e) => errors.push(`${e.code}: ${String(e.cause?.message ?? e.message).slice(0, 100)}`));
      sessions.push(session);
    }
    // Connected a few at a time: 32 handshakes at once would measure the machine, not the policy.
    for (let i = 0; i < CLIENTS; i += 8) await withTimeout(Promise.all(sessions.slice(i, i + 8).map((s) => s.start())), 60_000, 'connect');
    const back = sessions.map((s) => new Promise((resolve) => {
      const on = (state) => {
        if (state.status === 'connected' || state.status === 'ended' || state.status === 'failed') {
          s.off('state', on);
          resolve([state.status, performance.now() - crashAt]);
        }
      };
      s.on('state', on);
    }));
    crashAt = performance.now();
    process.kill(emulator.pid, 'SIGKILL');
    await sleep(DOWN_MS);
    emulator = await startEmulatorProcess({ agentBuildMs: 0, port });
    const restartedAt = performance.now() - crashAt;
    const results = await withTimeout(Promise.all(back), 45_000, 'reconnect');
    const failures = Object.entries(errors.reduce((n, e) => ((n[e] = (n[e] ?? 0) + 1), n), {}));
    const restored = results.filter(([status]) => status === 'connected').map(([, t]) => t).sort((a, b) => a - b);
    const times = offers.map(([, t]) => t).sort((a, b) => a - b);
    const afterRestart = offers.filter(([, t]) => t >= restartedAt).map(([, t]) => t).sort((a, b) => a - b);
    log(`${name}: ${restored.length}/${CLIENTS} restored, ${offers.length} offers, restarted at ${restartedAt.toFixed(0)} ms`);
    if (failures.length) log(`${name}: errors ${JSON.stringify(failures.slice(0, 5))}`);
    return {
      name, restartedAt, restored: restored.length, offers: offers.length,
      peak: peak(times, WINDOW_MS), peakAfterRestart: peak(afterRestart, WINDOW_MS),
      restoredP10: percentile(restored, 10), restoredP90: percentile(restored, 90),
      firstAfterRestart: afterRestart.slice(0, CLIENTS).map((t) => Math.round(t)),
      errors: failures,
      offersRaw: offers.map(([c, t, ok]) => [c, Math.round(t), ok ? 1 : 0]),
    };
  } finally {
    await Promise.all(sessions.map((s) => s.end({ mode: 'immediate' }).catch(() => undefined)));
    for (const mic of mics) mic.close?.();
    await emulator.stop().catch(() => undefined);
  }
}

export async function main() {
  const jittered = await round('jittered (default)', undefined);
  const locked = await round('lockstep (no jitter)', lockstep);
  const spread = (r) => `${r.peakAfterRestart} of ${CLIENTS} offers in the busiest ${WINDOW_MS} ms after the restart (${r.peak} over the whole outage); reconnected p10-p90 ${fmtMs(r.restoredP10, 0)}-${fmtMs(r.restoredP90, 0)} after the crash (${fmtMs(r.restoredP90 - r.restoredP10, 0)} wide), ${r.restored}/${CLIENTS}`;
  const ok = jittered.restored === CLIENTS;
  return {
    name: 'reconnect-jitter',
    title: `1c. ${CLIENTS} clients reconnecting after a service restart (killed, back after ${DOWN_MS / 1000} s)`,
    ok,
    ...(ok ? {} : { error: 'not every client reconnected' }),
    figures: [
      { label: 'Default ReconnectPolicy (jittered)', value: spread(jittered), target: `all reconnected, fewer offers per ${WINDOW_MS} ms than lockstep`, met: ok && jittered.peakAfterRestart < locked.peakAfterRestart },
      { label: 'Lockstep backoff (no jitter, the old policy)', value: spread(locked) },
    ],
    details: { jittered, lockstep: locked },
    notes: [
      `each client notices the silent path by its heartbeat (250 ms pings, 4 missed), so detection alone spreads them over about 250 ms; the policy then decides whether their retries stay apart`,
      `offers are counted from the crash; those before the restart fail at once (connection refused); an offer answered by a freshly started, overloaded service can still fail to connect within connectTimeoutMs (15 s), which is what a burst of lockstep retries causes`,
    ],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runBenchmark('reconnect-jitter', '1c. reconnect jitter', main);
}
