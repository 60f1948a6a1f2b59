import { systemClock, type Clock } from '../clock.js';
import { webAudioMeters, type LevelMeterFactory } from '../client/levels.js';
import type { MicrophoneSource } from '../client/media.js';
import type { VoiceSessionOptions } from '../client/options.js';
import type { VoiceSessionApi } from '../client/report.js';
import { checkConnection } from './connection.js';
import { checkMicrophone, releaseMicrophone } from './microphone.js';
import { gatherCandidates, gradeNetwork, type PeerConnectionConstructor } from './network.js';
import { checkService } from './service.js';
import { worstGrade, type CallCheckResult, type CheckPart, type ConnectionCheck, type MicrophoneCheck, type NetworkCheck, type ServiceCheck } from './types.js';

/** Options of {@link checkCall}. */
export interface CheckCallOptions {
  /** The API client the calls use (pointed at your relay). */
  api: VoiceSessionApi;
  /** The robot the calls will reach. */
  aiId: string;
  /** The STUN/TURN servers the calls use (the same `iceServers` as `VoiceSession`); default none. */
  iceServers?: RTCIceServer[];
  /** The microphone as `VoiceSession` takes it; `false` skips that part (text-only calls). */
  microphone?: MicrophoneSource | false;
  /**
   * A short test call after the other parts (it opens a service session: billed like any call, and
   * its one typed question is in the robot's history). `true`, or `{ sampleMs, question }`: how long
   * quality is measured while the answer plays (default 3000 ms) and what is asked (default
   * `Hello`: the answer's audio is what is measured).
   */
  connection?: boolean | { sampleMs?: number; question?: string };
  /** The whole check's time limit (ms); default 10000, at most 60000. Parts still running then are graded by what they found. */
  timeoutMs?: number;
  /** Aborting it ends the check at once: it resolves with what was found, `cancelled: true`. */
  signal?: AbortSignal;
  /** Language of the test call (default the session's, `ja`). */
  language?: string;
  /** Outside browsers: the WebRTC implementation (Node: `@roamhq/wrtc`). */
  wrtc?: VoiceSessionOptions['wrtc'];
  /** The clock (fake in tests). */
  clock?: Clock;
  /** How the microphone's level is measured; default Web Audio (none in Node: the level is then not measured). */
  levelMeter?: LevelMeterFactory;
}

/** Default and largest time limits of a check (ms). */
export const CHECK_TIMEOUT_MS = 10_000;
export const MAX_CHECK_TIMEOUT_MS = 60_000;
/** How long the microphone is listened to, and how long gathering may take at most (ms). */
const LISTEN_MS = 1000;
const GATHER_MS = 4000;

const skipped = <T extends CheckPart>(extra: Omit<T, keyof CheckPart>, code = 'skipped', message = 'Not checked.'): T => ({ grade: 'skipped', code, message, ...extra }) as T;
const NO_COUNTS = { host: 0, srflx: 0, relay: 0, relayTcp: 0, udp: 0 };

/**
 * The pre-call check (docs/check.md): is the microphone there and allowed, and does it hear
 * something; which ways out the network offers (UDP, or TURN over TCP needed); do the relay and the
 * service answer (without opening a session); and, when asked, how a short real call sounds (RTT,
 * jitter, loss, MOS). Each part is graded `good`, `warning` or `bad` with a sentence of what to do.
 * The returned promise never rejects; bounded by `timeoutMs`; cancellable with `signal`. Options
 * that cannot work (no `aiId` or `api`, a `timeoutMs` out of range) throw at once, synchronously.
 */
export function checkCall(options: CheckCallOptions): Promise<CallCheckResult> {
  const timeoutMs = options.timeoutMs ?? CHECK_TIMEOUT_MS;
  if (typeof options.aiId !== 'string' || !options.aiId) throw new TypeError('checkCall: `aiId` is required (the robot the calls will reach)');
  if (typeof options.api?.realtime?.warmup !== 'function') throw new TypeError('checkCall: `api` is required (createApiClient({ baseUrl: your relay }))');
  if (!(timeoutMs > 0 && timeoutMs <= MAX_CHECK_TIMEOUT_MS)) throw new RangeError(`checkCall: \`timeoutMs\` must be more than 0 and at most ${MAX_CHECK_TIMEOUT_MS} ms, got ${String(options.timeoutMs)}`);
  return runCheck(options, timeoutMs);
}

async function runCheck(options: CheckCallOptions, timeoutMs: number): Promise<CallCheckResult> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();

  // One controller for the whole check: the caller's signal and the time limit both abort it.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) stop.abort();
  const limit = clock.setTimeout(() => stop.abort(), timeoutMs);
  const stopped = new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
  /** A part's promise, or its stand-in when the check stops first. */
  const bounded = <T>(work: Promise<T>, late: () => T) => Promise.race([work, stopped.then(late)]);
  const late = (code: 'cancelled' | 'check_timeout', what: string) => options.signal?.aborted
    ? { grade: 'skipped' as const, code: 'cancelled', message: 'The check was cancelled.' }
    : { grade: 'bad' as const, code, message: `${what} did not finish within ${timeoutMs} ms.` };

  const meters = options.levelMeter ? undefined : webAudioMeters();
  let stream: MediaStream | undefined;
  let done = false;
  try {
    const micWork: Promise<MicrophoneCheck> = options.microphone === false
      ? Promise.resolve(skipped<MicrophoneCheck>({ peakLevel: null }, 'no_microphone', 'Text-only calls: no microphone is used.'))
      : checkMicrophone({ source: options.microphone, clock, listenMs: LISTEN_MS, meter: options.levelMeter ?? meters?.factory, signal: stop.signal })
        .then((r) => {
          // A microphone that opens after the check stopped waiting is released at once.
          if (done) releaseMicrophone(r.stream);
          else stream = r.stream;
          return r.part;
        });
    const Peer = (options.wrtc?.RTCPeerConnection ?? (globalThis as { RTCPeerConnection?: PeerConnectionConstructor }).RTCPeerConnection) as PeerConnectionConstructor | undefined;
    const netWork: Promise<NetworkCheck> = Peer
      ? gatherCandidates(Peer, options.iceServers ?? [], GATHER_MS, clock, stop.signal).then(
        (g) => gradeNetwork(g.candidates, options.iceServers),
        (err: unknown): NetworkCheck => ({ grade: 'bad', code: 'ice_servers_invalid', message: `The browser refused iceServers (${(err as Error)?.message ?? String(err)}): check their URLs and credentials.`, candidates: NO_COUNTS, udp: null }),
      )
      : Promise.resolve({ grade: 'bad', code: 'webrtc_unavailable', message: 'This browser cannot make WebRTC calls: use a current Chrome, Edge, Firefox or Safari.', candidates: NO_COUNTS, udp: null });
    const serviceWork = checkService(options.api, options.aiId, clock);

    const [microphone, network, service] = await Promise.all([
      bounded(micWork, () => ({ ...late('check_timeout', 'The microphone check'), peakLevel: null })),
      bounded(netWork, () => ({ ...late('check_timeout', 'Gathering network candidates'), candidates: NO_COUNTS, udp: null })),
      bounded(serviceWork, (): ServiceCheck => ({ ...late('check_timeout', 'The relay and service'), latencyMs: null })),
    ]);

    let connection: ConnectionCheck | undefined;
    if (options.connection) {
      const asked = typeof options.connection === 'object' ? options.connection : {};
      const sampleMs = asked.sampleMs ?? 3000;
      const budgetMs = timeoutMs - (clock.now() - started);
      const none = { rttMs: null, jitterMs: null, lossPct: null, mos: null, path: null };
      if (stop.signal.aborted || budgetMs <= sampleMs) {
        connection = { ...late('check_timeout', 'The test connection'), ...none };
      } else if (service.grade === 'bad') {
        connection = skipped<ConnectionCheck>(none, 'service_down', 'Not tried: the relay or the service did not answer.');
      } else {
        const ownStream = stream;
        connection = await checkConnection({
          session: {
            api: options.api, aiId: options.aiId, iceServers: options.iceServers, wrtc: options.wrtc, language: options.language,
            microphone: ownStream ? async () => ownStream.clone() : false,
          },
          clock, sampleMs, budgetMs, signal: stop.signal, question: asked.question ?? 'Hello',
        });
      }
    }
    const parts: CheckPart[] = [microphone, network, service, ...(connection ? [connection] : [])];
    return {
      overall: worstGrade(parts), microphone, network, service, ...(connection ? { connection } : {}),
      durationMs: Math.max(0, clock.now() - started), cancelled: stop.signal.aborted,
    };
  } finally {
    done = true;
    clock.clearTimeout(limit);
    options.signal?.removeEventListener('abort', onAbort);
    releaseMicrophone(stream);
    meters?.close();
  }
}
