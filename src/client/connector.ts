import { fromApiFailure, VoiceSessionError } from './errors.js';
import type { VoiceSessionOptions } from './options.js';
import type { Dialect, IceSignaling, SignalingRequest, Transport, TransportProvider } from './transport.js';

/** One connection attempt and what it still waits for. */
export interface Connection {
  transport: Transport;
  /** Cancels this attempt's signaling request. */
  abort: AbortController;
  sessionId?: string;
  audio: Promise<void>;
  ready: Promise<void>;
  gotAudio(): void;
  gotReady(): void;
}

/** What the session hears from an attempt's transport; `conn` lets it ignore attempts it dropped. */
export interface ConnectionHandlers {
  message(conn: Connection, text: string): void;
  audio(conn: Connection, stream: MediaStream): void;
  closed(conn: Connection): void;
  signaling(conn: Connection, mode: IceSignaling): void;
}

type Target = Pick<VoiceSessionOptions, 'aiId' | 'api' | 'language' | 'userIdentifier' | 'interruptions'>;

/** An attempt with less time than this left is not started: it could only time out and hide the real failure. */
export const MIN_ATTEMPT_MS = 500;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Timeouts of attempts: less informative than any other failure (see retry()). */
const timeouts = new WeakSet<object>();

/** The service refused to continue the session (e.g. 404/409: deleted, 401: logged out): retrying cannot help. */
function refused(err: unknown): boolean {
  const status = (err as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** Rejects with `error()` after `ms`; `clear()` stops the timer. */
function deadline(ms: number, error: () => Error): { promise: Promise<never>; clear(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms);
  });
  promise.catch(() => undefined);
  return { promise, clear: () => clearTimeout(timer) };
}

/** Starts an attempt: a new transport sending `mic`. */
export function openConnection(mic: MediaStream, provider: TransportProvider, dialect: Dialect, on: ConnectionHandlers): Connection {
  let gotAudio!: () => void;
  let gotReady!: () => void;
  const audio = new Promise<void>((resolve) => (gotAudio = resolve));
  const ready = new Promise<void>((resolve) => (gotReady = resolve));
  const conn = { audio, ready, gotAudio, gotReady, abort: new AbortController() } as Connection;
  conn.transport = provider.open({ microphone: mic, channel: dialect.channel, trickle: dialect.patch !== undefined }, {
    message: (text) => on.message(conn, text),
    audio: (stream) => on.audio(conn, stream),
    closed: () => on.closed(conn),
    signaling: (mode) => on.signaling(conn, mode),
  });
  return conn;
}

/**
 * Completes an attempt within `timeoutMs`: offer, signaling through the dialect (continuing
 * `sessionId` when given; `answered` hears the service's session id at once), answer, then the
 * open channel + remote audio + `session.ready`. On failure the transport is closed and a
 * VoiceSessionError thrown.
 */
export async function negotiate(conn: Connection, dialect: Dialect, target: Target, sessionId: string | undefined, timeoutMs: number, answered: (sessionId: string) => void): Promise<void> {
  const limit = deadline(timeoutMs, () => {
    const error = new VoiceSessionError('connection_failed', `Connection not established within ${timeoutMs} ms`);
    timeouts.add(error);
    return error;
  });
  const step = <T>(promise: Promise<T>) => Promise.race([promise, limit.promise]);
  const { aiId, api, language, userIdentifier, interruptions } = target;
  const request = (): SignalingRequest => ({
    aiId, api, language: language ?? 'ja', signal: conn.abort.signal,
    ...(userIdentifier ? { userIdentifier } : {}),
    // A second offer of the same attempt (trickle refused) continues the session the first one named.
    ...((conn.sessionId ?? sessionId) ? { sessionId: conn.sessionId ?? sessionId } : {}),
    ...(interruptions ? { interruptions } : {}),
  });
  const patch = dialect.patch?.bind(dialect);
  const resource = patch && { patch: (fragment: string) => patch(conn.sessionId!, fragment, request()) };
  try {
    await step(conn.transport.connect(async (offer) => {
      const expected = conn.sessionId ?? sessionId;
      let answer;
      try {
        answer = await dialect.signal(offer, request());
      } catch (err) {
        throw fromApiFailure(err, 'Signaling failed');
      }
      if (expected && answer.sessionId !== expected) {
        throw new VoiceSessionError('signaling_failed', `The service answered for session ${answer.sessionId} instead of continuing ${expected}`);
      }
      conn.sessionId = answer.sessionId;
      answered(answer.sessionId);
      return answer;
    }, resource));
    // Connected only once the assistant's audio is attached and the service is ready, so its
    // first words are never cut off.
    await step(Promise.all([conn.audio, conn.ready]));
  } catch (err) {
    conn.abort.abort();
    conn.transport.close();
    if (err instanceof VoiceSessionError) throw err;
    throw new VoiceSessionError('connection_failed', `Connection failed: ${(err as Error)?.message ?? err}`, { cause: err });
  } finally {
    limit.clear();
  }
}

/**
 * Runs `attempt` (given its number, from 1, and the ms left) until it succeeds, pausing 250 ms
 * doubling up to 2 s between tries (shortened so that the last attempt still has MIN_ATTEMPT_MS).
 * Gives up when less than MIN_ATTEMPT_MS of `timeoutMs` is left, or when the service refused; it then throws
 * the most informative failure (the last one that was not a timeout, if any). Stops when `stopped()`.
 */
export async function retry<T>(timeoutMs: number, stopped: () => boolean, attempt: (n: number, leftMs: number) => Promise<T>): Promise<T> {
  const until = Date.now() + timeoutMs;
  let cause: unknown;
  for (let n = 1; !stopped(); n++) {
    try {
      return await attempt(n, until - Date.now());
    } catch (err) {
      if (cause === undefined || !timeouts.has(err as object) || timeouts.has(cause as object)) cause = err;
      if (refused(err)) break;
      const spare = until - Date.now() - MIN_ATTEMPT_MS;
      if (spare < 0) break;
      await sleep(Math.min(250 * 2 ** (n - 1), 2000, spare));
    }
  }
  throw cause;
}
