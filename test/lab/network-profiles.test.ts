import { readFileSync } from 'node:fs';
import wrtc from '@roamhq/wrtc';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { deadline, sleep, systemClock } from '../../src/clock.js';
import { VoiceSession, type CallQuality, type QualityReport, type SessionStatus, type Turn } from '../../src/client/index.js';
import { measuredInput, rFactor } from '../../src/client/quality/index.js';
import { startEmulator } from 'kb-voice-emulator';
import { LabRoute, resolveProfile, type NetworkProfileName } from 'kb-voice-emulator/lab';
import { sinkLevelMeter } from '../client/helpers/level-meter.js';
import { FakeMicrophone } from '../client/helpers/microphone.js';
import { nextTurn } from '../client/helpers/turns.js';

// Real calls (Node caller on @roamhq/wrtc, VoiceSession) through the network lab to the emulator,
// one per profile, all at once (short, and every profile meets the same machine load). Each asks
// one spoken and one typed question.

const QUESTION = readFileSync(new URL('../fixtures/audio/boil-time.wav', import.meta.url));
/** Best first: each one rated below the one two before it, and at most {@link NEIGHBOUR_TIE_R} above the one before ('rates every worse profile lower'). */
const ORDER: NetworkProfileName[] = ['wifi', '4g', 'congested-wifi', 'satellite', '3g-poor'];
/** How far (E-model R points) a profile may measure above its better neighbour on a loaded machine (see 'rates every worse profile lower'). */
const NEIGHBOUR_TIE_R = 6;

interface CallResult {
  quality: QualityReport;
  turns: Turn[];
  statuses: SessionStatus[];
  /** Times the spoken question had to be asked again because no turn came of it. */
  spokenRetries: number;
  /** What the lab dropped of each direction (%), outages included. */
  injected: { up: number; down: number };
  /** Each quality window's E-model R (the MOS's scale before it is clamped at 1), with when it came (ms, `performance.now()`). */
  rated: RatedWindow[];
}

interface RatedWindow {
  at: number;
  r: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * `promise`, or a rejection naming `what` after `ms`: a wait that never ends would only show as the
 * hook's 300 s limit (a busy-core run, 2026-11-30), without saying which call hung where; the call's
 * error then names its profile and states.
 */
function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  const late = deadline(systemClock, ms, () => new Error(`${what} within ${ms / 1000} s`));
  return Promise.race([promise, late.promise]).finally(late.clear);
}

async function call(profile: NetworkProfileName, seed: number, during?: (route: LabRoute, session: VoiceSession) => Promise<void>): Promise<CallResult> {
  const route = new LabRoute({ profile, seed });
  // the built-in voice: the cheapest answers, so the calls load the machine least
  const emu = await startEmulator({ port: 0, agentBuildMs: 0, network: route, realtime: { voice: 'builtin' } });
  const mic = new FakeMicrophone();
  const session = new VoiceSession({
    aiId: emu.fixtures.robotId, api: createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey }), wrtc: wrtc as never,
    microphone: mic.open, language: 'en', levelMeter: sinkLevelMeter, quality: { intervalMs: 500, windowMs: 2000 },
    // a 650 ms round trip losing 6 % can take several DTLS retransmissions to connect
    connectTimeoutMs: 45_000,
    // the default heartbeat: it must allow for 3g-poor's slow, lossy round trips (docs/quality.md)
  });
  const statuses: SessionStatus[] = [];
  let spokenRetries = 0;
  session.on('state', (s) => statuses.push(s.status));
  const windows: { at: number; q: CallQuality }[] = [];
  session.on('quality', (q) => windows.push({ at: performance.now(), q }));
  try {
    await session.start();
    const turns: Turn[] = [];
    session.on('turn', (t) => turns.push(t));
    // The spoken question; on a loaded machine with a lossy path its audio can be lost before the
    // service hears speech at all, so it is asked once more (never a third time).
    for (let tries = 1; ; tries++) {
      const spoken = nextTurn(session, 30_000);
      await mic.playWav(QUESTION);
      try {
        await spoken;
        break;
      } catch (error) {
        if (tries === 2) throw error;
        spokenRetries++;
      }
    }
    await during?.(route, session);
    // (loss can split the spoken question in two turns: the typed one is the one to wait for)
    const typed = new Promise<void>((resolve) => session.on('turn', (t) => t.input === 'text' && resolve()));
    session.sendText('How do I descale it?');
    await bounded(typed, 60_000, 'no answer to the typed question');
    const quality = (await bounded(session.report(), 60_000, 'no report')).quality;
    const sum = (dir: 'up' | 'down') => route.labs.reduce((a, l) => ({ packets: a.packets + l.counters[dir].packets, dropped: a.dropped + l.counters[dir].dropped }), { packets: 0, dropped: 0 });
    const share = (c: { packets: number; dropped: number }) => (c.packets ? (100 * c.dropped) / c.packets : 0);
    const rated = windows.flatMap(({ at, q }) => (q.rttMs === null || q.packetLossPct === null ? [] : [{ at, r: rFactor(measuredInput({ rttMs: q.rttMs, jitterMs: q.jitterMs, packetLossPct: q.packetLossPct })) }]));
    return { quality, turns, statuses, spokenRetries, injected: { up: share(sum('up')), down: share(sum('down')) }, rated };
  } catch (error) {
    throw new Error(`${profile} call: ${(error as Error).message} (states ${statuses.join(' > ')})`, { cause: error });
  } finally {
    // bounded too: a close that never ends would otherwise hang the hook without a word
    await bounded(session.end({ mode: 'immediate' }), 30_000, `${profile} call: session.end() did not finish`);
    mic.close();
    await bounded(emu.close(), 30_000, `${profile} call: the emulator did not close`);
  }
}

/** Fewest windows of each call a comparison over the seconds both were measured takes (see {@link bothMeasured}). */
const MIN_SHARED_WINDOWS = 3;

/**
 * The median R of two calls over the seconds both were measuring (from the later first window to the
 * earlier last one), so that both medians come from the same seconds of the machine's load; over
 * each whole call when they share fewer than {@link MIN_SHARED_WINDOWS} windows each.
 */
function bothMeasured(a: RatedWindow[], b: RatedWindow[]): { a: number; b: number; shared: boolean } {
  const from = Math.max(a[0]!.at, b[0]!.at);
  const to = Math.min(a.at(-1)!.at, b.at(-1)!.at);
  const within = (xs: RatedWindow[]) => xs.filter((w) => w.at >= from && w.at <= to).map((w) => w.r);
  const [sa, sb] = [within(a), within(b)];
  if (sa.length >= MIN_SHARED_WINDOWS && sb.length >= MIN_SHARED_WINDOWS) return { a: median(sa), b: median(sb), shared: true };
  return { a: median(a.map((w) => w.r)), b: median(b.map((w) => w.r)), shared: false };
}

const results = new Map<string, CallResult>();

beforeAll(async () => {
  const outage = () => call('4g', 99, async (route, session) => {
    // The path dies for 4 s between two turns, and stays dead until the call noticed it; the call
    // must come back and lose no turn. A fixed 4 s outage could pass unnoticed on a busy core: the
    // heartbeat does not judge pings its own late timers could not read the answers of
    // (src/client/heartbeat.ts), so the call rode it out and was never 'reconnecting' (a busy-core
    // run, 2026-12-07: states 'connecting > connected' 60 s after the outage began).
    const noticed = new Promise<void>((resolve) => session.on('state', (s) => s.status === 'reconnecting' && resolve()));
    const back = new Promise<void>((resolve) => session.on('state', (s, prev) => prev.status === 'reconnecting' && s.status === 'connected' && resolve()));
    route.outage();
    await Promise.all([sleep(systemClock, 4000), bounded(noticed, 60_000, 'the outage not noticed (never reconnecting)')]);
    route.restore();
    await bounded(back, 60_000, 'not connected again after the outage');
  });
  // All at once: the machine's load (which the in-process lab adds to every profile's delay and
  // jitter) then weighs on every profile alike, so their order holds even on a busy machine.
  const all = await Promise.all([...ORDER.map((p, i) => call(p, i + 1)), outage()]);
  ORDER.forEach((p, i) => results.set(p, all[i]!));
  results.set('outage', all.at(-1)!);
  // Six real calls at once (3g-poor's 650 ms round trips, a spoken question asked twice at worst, a
  // 4 s outage): ~60 s on a quiet machine; a busy core took past 150 s once (issue 44's run).
}, 300_000);

describe('calls through the network lab', () => {
  it.each(ORDER)('%s: connects, completes both turns and measures the loss the lab injected', (profile) => {
    const r = results.get(profile)!;
    expect(r.statuses).toContain('connected');
    expect(r.turns[0]!.input).toBe('voice');
    expect(r.turns[0]!.answer.length).toBeGreaterThan(0);
    expect(r.turns.filter((t) => t.input === 'text').map((t) => t.question)).toEqual(['How do I descale it?']);
    // Loss can split the spoken question in two: the late piece may barge in on an answer (the typed
    // one's too, so it is not always the last turn) or be cut by it. Such a turn says it was
    // interrupted; every other turn has its answer.
    for (const t of r.turns) if (!t.interrupted) expect(t.answer.length, `turn ${t.id} (${t.input})`).toBeGreaterThan(0);
    expect(r.quality.samples).toBeGreaterThan(5);
    expect(r.quality.rttMs.p50).not.toBeNull();
    // packetLossPct is the worse direction of each window; a direction counts only while it
    // carries audio (mostly the answer: the caller is silent but for its question, Opus DTX).
    // So the measure lies within ±50 % of what the lab dropped in one direction or the other.
    const high = Math.max(r.injected.up, r.injected.down);
    const measured = r.quality.packetLossPct.mean!;
    // Below 1 % a short call loses a handful of packets, so the bound is taken of at least 1 %.
    // Above: a loaded machine drops packets of its own that the lab never counted (socket buffers
    // overflow while the event loop is held: congested-wifi measured 3.29 % against 2.15 % injected
    // under a busy core), so 1.5 points are allowed on top. The lower bound is the next test's.
    expect(measured).toBeLessThanOrEqual(1.5 * Math.max(high, 1) + 1.5);
  });

  it('measures at least 0.4 of the loss the lab injected, over the lossy profiles together (4g, congested-wifi, 3g-poor)', () => {
    // The lab's count includes packets no window measures (RTCP, STUN, a direction in DTX silence),
    // so 0.4 of the lower direction (4g measured 0.54 % against 1.11 % once). Taken over the
    // profiles set to lose 1 % or more each way together, not one by one, and whatever share of a
    // call's packets the lab's bursts happened to take (congested-wifi's lower direction counted
    // under 1 % once): a call's answers are a few hundred audio packets, and congested-wifi loses
    // them in bursts of 3 on average (3 %): about four bursts are expected in them and one or none
    // comes about one call in ten; a busy core's run measured 0.61 % against 1.98 % injected. Three
    // calls together make a quality measure that stopped seeing loss fail, and one call's luck pass.
    const lossy = ORDER.filter((p) => {
      const { up, down } = resolveProfile(p);
      return Math.min(up.lossPct ?? 0, down.lossPct ?? 0) >= 1;
    }).map((p) => results.get(p)!);
    expect(lossy).toHaveLength(3);
    const lower = (r: CallResult) => Math.min(r.injected.up, r.injected.down);
    const measured = lossy.reduce((sum, r) => sum + r.quality.packetLossPct.mean!, 0);
    const injected = lossy.reduce((sum, r) => sum + lower(r), 0);
    const shown = lossy.map((r) => `${r.quality.packetLossPct.mean!.toFixed(2)} % of ${lower(r).toFixed(2)} %`).join(', ');
    expect(measured, `measured vs injected (lower direction): ${shown}`).toBeGreaterThanOrEqual(0.4 * injected);
  });

  it('rates every worse profile lower', () => {
    // On R, the E-model's rating the MOS is a rising function of, taken per window and then the
    // median: the machine's own delay (an in-process lab and six calls in one process; at CI's load
    // the wifi call measured MOS 1.72) adds to every profile, and past R ~6.5 the MOS is clamped at 1,
    // where a mean of clamped values (satellite 1.16, congested-wifi 1.02 once) orders nothing. R goes
    // on falling, and a median is not moved by the few windows a stall lengthened.
    // Two calls are compared over the seconds both were measuring (bothMeasured): the calls are not
    // the same length, and over whole calls the best profiles' (the shortest) had their windows in
    // the busiest seconds, six calls connecting and answering at once, while the slower ones went on
    // into calmer ones: a busy-core run (scripts/ci-under-load.sh) measured wifi R 58.8, 4g 47.7 and
    // congested-wifi 68.6 so. Making the calls meet once all were connected instead put their
    // questions and answers in the same second, a higher peak: it timed out there (docs/contributing.md).
    // Two profiles apart, the order is strict. Neighbours whose impairments are close (wifi and 4g:
    // MOS 4.37 and 4.2 on a quiet machine, bench 1c) may tie when the machine's own delay dominates
    // both: a neighbour may be at most NEIGHBOUR_TIE_R above, never more; the benchmark, on a quiet
    // machine, keeps the strict order.
    const rated = ORDER.map((p) => results.get(p)!.rated);
    const pairs = [
      ...ORDER.slice(1).map((_, k) => ({ better: k, worse: k + 1, allowance: NEIGHBOUR_TIE_R })),
      ...ORDER.slice(2).map((_, k) => ({ better: k, worse: k + 2, allowance: 0 })),
    ].map((pair) => ({ ...pair, ...bothMeasured(rated[pair.better]!, rated[pair.worse]!) }));
    const shown = pairs.map((p) => `${ORDER[p.worse]} ${p.b.toFixed(1)} vs ${ORDER[p.better]} ${p.a.toFixed(1)}${p.shared ? '' : ' (whole calls)'}`).join('; ');
    for (const p of pairs) expect(p.b, `${ORDER[p.worse]} below ${ORDER[p.better]}${p.allowance ? ` + ${p.allowance}` : ''}: R ${shown}`).toBeLessThan(p.a + p.allowance);
    // and the reported MOS of the best profile is above the worst's
    const mos = ORDER.map((p) => results.get(p)!.quality.mos.mean!);
    expect(mos[0]).toBeGreaterThan(mos.at(-1)!);
  });

  it('loses no turn over an outage (4 s, and until the call noticed it)', () => {
    const r = results.get('outage')!;
    expect(r.statuses).toContain('reconnecting');
    // (each attempt reports `reconnecting` again)
    expect(r.statuses.slice(r.statuses.indexOf('reconnecting')).find((s) => s !== 'reconnecting')).toBe('connected');
    expect(r.statuses).not.toContain('failed');
    expect(r.turns[0]!.input).toBe('voice');
    expect(r.turns.at(-1)!.input).toBe('text');
    expect(r.quality.reconnects).toBeGreaterThanOrEqual(1);
    // the outage shows in the measured loss
    expect(r.quality.packetLossPct.max).toBeGreaterThan(0);
  });
});
