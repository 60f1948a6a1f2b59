import type { Clock } from '../clock.js';
import { qualityLevel } from '../client/quality/emodel.js';
import type { CallQuality } from '../client/quality/sample.js';
import type { VoiceSessionOptions } from '../client/options.js';
import { simplePeerTransport } from '../client/peer.js';
import { VoiceSession } from '../client/session.js';
import type { Transport, TransportProvider } from '../client/transport.js';
import type { ConnectionCheck } from './types.js';

export interface ConnectionCheckOptions {
  /** The options of the test call (api, aiId, iceServers, wrtc, language…); `microphone` is the checked stream or false. */
  session: VoiceSessionOptions;
  clock: Clock;
  /** How long quality is sampled once the answer's audio flows (ms). */
  sampleMs: number;
  /** The typed question the test call asks, so that the service's audio flows and can be measured. */
  question: string;
  /** The time left for the whole part (ms): connecting included. */
  budgetMs: number;
  signal?: AbortSignal;
}

type Path = NonNullable<ConnectionCheck['path']>;

const part = (grade: ConnectionCheck['grade'], code: string, message: string, extra: Partial<ConnectionCheck> = {}): ConnectionCheck => ({
  grade, code, message, rttMs: null, jitterMs: null, lossPct: null, mos: null, path: null, ...extra,
});

/** The transport of the selected candidate pair's local side, from one `getStats()` report. */
export function selectedPath(report: { forEach(cb: (value: unknown) => void): void }): Path | null {
  const stats = new Map<string, Record<string, unknown>>();
  let pairId: unknown;
  report.forEach((value) => {
    const s = value as Record<string, unknown>;
    if (typeof s.id === 'string') stats.set(s.id, s);
    if (s.type === 'transport' && typeof s.selectedCandidatePairId === 'string') pairId = s.selectedCandidatePairId;
  });
  let pair = typeof pairId === 'string' ? stats.get(pairId) : undefined;
  pair ??= [...stats.values()].find((s) => s.type === 'candidate-pair' && (s.selected === true || (s.nominated === true && s.state === 'succeeded')));
  const local = pair && typeof pair.localCandidateId === 'string' ? stats.get(pair.localCandidateId) : undefined;
  if (!local) return null;
  const relayed = local.candidateType === 'relay';
  const protocol = relayed && typeof local.relayProtocol === 'string' ? local.relayProtocol : typeof local.protocol === 'string' ? local.protocol : null;
  return { protocol, relayed };
}

const round = (n: number | null, digits = 0) => (n === null ? null : Math.round(n * 10 ** digits) / 10 ** digits);

/** Beyond these a call does not carry speech at all (graded `bad`); below them a poor MOS is a `warning`: the call works, badly. */
export const UNUSABLE = Object.freeze({ lossPct: 20, rttMs: 2000 });

/**
 * Grades a measured quality for a visitor about to call (docs/check.md): `good` where the call's own
 * level would be excellent or good; `warning` for fair and poor (the call works, answers may
 * stutter: 3g-poor's MOS ~1.7 is here); `bad` only when speech cannot get through
 * ({@link UNUSABLE}). The figures are in the sentence.
 */
export function gradeQuality(q: CallQuality, path: Path | null): ConnectionCheck {
  const figures = { rttMs: round(q.rttMs), jitterMs: round(q.jitterMs, 1), lossPct: round(q.packetLossPct, 1), mos: round(q.mos, 2), path };
  const said = `round trip ${figures.rttMs ?? '?'} ms, jitter ${figures.jitterMs ?? '?'} ms, loss ${figures.lossPct ?? '?'} %, MOS ${figures.mos ?? '?'}`;
  const level = qualityLevel(q.mos);
  if (level === 'unknown') return part('warning', 'quality_unmeasured', 'The test call connected, but its quality could not be measured.', figures);
  if ((q.packetLossPct ?? 0) >= UNUSABLE.lossPct || (q.rttMs ?? 0) >= UNUSABLE.rttMs) {
    return part('bad', 'quality_unusable', `The test call barely got through (${said}): speech will not be understood. Use another network.`, figures);
  }
  if (level === 'poor' || level === 'fair') return part('warning', `quality_${level}`, `The test call worked but was not clear (${said}): answers may stutter or arrive late. A better network helps.`, figures);
  return part('good', 'quality_good', `The test call was clear (${said}).`, figures);
}

/**
 * A short real call (it opens a service session, so it is billed like any call): connects with
 * the checked microphone, asks `question` (typed), samples quality for `sampleMs` while the answer
 * plays through the session's own sampler, reads the path the connection chose, and ends at once.
 */
export async function checkConnection(options: ConnectionCheckOptions): Promise<ConnectionCheck> {
  const { clock, signal } = options;
  let transport: Transport | undefined;
  const inner: TransportProvider = options.session.transport ?? simplePeerTransport({ iceServers: options.session.iceServers, wrtc: options.session.wrtc });
  const provider: TransportProvider = {
    preflight: inner.preflight?.bind(inner),
    open: (o, e) => (transport = inner.open(o, e)),
  };
  let session: VoiceSession;
  try {
    session = new VoiceSession({ ...options.session, transport: provider, clock, quality: { intervalMs: 500, windowMs: Math.max(1000, options.sampleMs) } });
  } catch (err) {
    return part('bad', 'connect_failed', `The test call could not be made: ${(err as Error)?.message ?? String(err)}`);
  }
  let timer: unknown;
  // the latest measured value (a sample without a MOS, between two answers, does not replace one)
  let last: CallQuality | undefined;
  session.on('quality', (q) => {
    if (q.mos !== null || !last) last = q;
  });
  const stop = () => void session.end({ mode: 'immediate' });
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const outcome = await new Promise<'sampled' | 'failed' | 'timeout' | 'cancelled'>((resolve) => {
      timer = clock.setTimeout(() => resolve('timeout'), options.budgetMs);
      signal?.addEventListener('abort', () => resolve('cancelled'), { once: true });
      let sampling = false;
      const sample = () => {
        if (sampling) return;
        sampling = true;
        clock.setTimeout(() => resolve('sampled'), options.sampleMs);
      };
      session.on('state', (state) => {
        if (state.status === 'failed' || state.status === 'ended') resolve('failed');
        // Between answers nothing flows (a quiet caller's Opus sends a few packets a second): ask
        // one short question and measure while its answer plays.
        if (state.status === 'connected') {
          try {
            session.sendText(options.question);
          } catch {
            sample();
          }
        }
      });
      session.on('assistantSpeaking', (speaking) => speaking && sample());
      session.start().catch(() => resolve('failed'));
    });
    if (outcome === 'cancelled') return part('skipped', 'cancelled', 'The check was cancelled.');
    if (outcome === 'failed') {
      const error = session.getSnapshot().error;
      return part('bad', 'connect_failed', `The test call could not connect${error ? ` (${error.code})` : ''}: the network blocks the call's media, or the service refused it.`);
    }
    if (outcome === 'timeout' && session.getSnapshot().status !== 'connected') {
      return part('bad', 'connect_timeout', 'The test call did not connect in time: the network may block UDP (TURN over TCP needed) or be very slow.');
    }
    const report = await transport?.getStats?.().catch(() => undefined);
    return gradeQuality(last ?? session.getSnapshot().quality, report ? selectedPath(report) : null);
  } finally {
    clock.clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
    await session.end({ mode: 'immediate' });
  }
}
