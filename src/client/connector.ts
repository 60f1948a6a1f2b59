import { VoiceSessionError } from './errors.js';
import type { VoiceSessionOptions } from './options.js';
import { PeerLink } from './peer.js';

/** One connection attempt and what it still waits for. */
export interface Connection {
  link: PeerLink;
  /** Cancels this attempt's signaling request. */
  abort: AbortController;
  sessionId?: string;
  track: Promise<void>;
  ready: Promise<void>;
  gotTrack(): void;
  gotReady(): void;
}

/** What the session hears from an attempt's link; `conn` lets it ignore attempts it dropped. */
export interface ConnectionHandlers {
  message(conn: Connection, text: string): void;
  track(conn: Connection, stream: MediaStream): void;
  closed(conn: Connection): void;
}

type Target = Pick<VoiceSessionOptions, 'aiId' | 'api' | 'language' | 'userIdentifier' | 'iceServers' | 'wrtc'>;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The service refused to continue the session (e.g. 404/409: deleted): retrying cannot help. */
function refused(err: unknown): boolean {
  const status = ((err as { cause?: { status?: unknown } }).cause)?.status;
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

/** Starts an attempt: a new link sending `mic`, which begins gathering candidates for its offer. */
export function openConnection(mic: MediaStream, target: Target, on: ConnectionHandlers): Connection {
  let gotTrack!: () => void;
  let gotReady!: () => void;
  const track = new Promise<void>((resolve) => (gotTrack = resolve));
  const ready = new Promise<void>((resolve) => (gotReady = resolve));
  const conn: Connection = { track, ready, gotTrack, gotReady, abort: new AbortController() } as Connection;
  conn.link = new PeerLink(
    { stream: mic, iceServers: target.iceServers ?? [], ...(target.wrtc ? { wrtc: target.wrtc } : {}) },
    {
      message: (text) => on.message(conn, text),
      track: (_track, stream) => on.track(conn, stream),
      closed: () => on.closed(conn),
    },
  );
  return conn;
}

/**
 * Completes an attempt within `timeoutMs`: offer, signaling (continuing `sessionId` when given;
 * `answered` hears the service's session id at once), answer, then ICE + remote audio +
 * `session.ready`. On failure the link is destroyed and a VoiceSessionError thrown.
 */
export async function negotiate(conn: Connection, target: Target, sessionId: string | undefined, timeoutMs: number, answered: (sessionId: string) => void): Promise<void> {
  const limit = deadline(timeoutMs, () => new VoiceSessionError('connection_failed', `Connection not established within ${timeoutMs} ms`));
  // Every step also stops when the link closes (end() destroys it), whatever the step waits on.
  const closed = conn.link.closed.catch((cause: unknown) => {
    throw new VoiceSessionError('connection_failed', `The connection closed: ${(cause as Error)?.message ?? cause}`, { cause });
  });
  closed.catch(() => undefined);
  const step = <T>(promise: Promise<T>) => Promise.race([promise, limit.promise, closed]);
  try {
    const sdp = await step(conn.link.offer());
    const { aiId, api, language, userIdentifier } = target;
    let answer;
    try {
      answer = await step(api.realtime.connect(aiId, {
        type: 'offer', sdp, language: language ?? 'ja',
        ...(userIdentifier ? { user_identifier: userIdentifier } : {}),
        ...(sessionId ? { session_id: sessionId } : {}),
      }, { signal: conn.abort.signal }));
    } catch (err) {
      throw err instanceof VoiceSessionError ? err : new VoiceSessionError('signaling_failed', `Signaling failed: ${(err as Error)?.message ?? err}`, { cause: err });
    }
    if (sessionId && answer.session_id !== sessionId) {
      throw new VoiceSessionError('signaling_failed', `The service answered for session ${answer.session_id} instead of continuing ${sessionId}`);
    }
    conn.sessionId = answer.session_id;
    answered(answer.session_id);
    conn.link.answer(answer.sdp);
    // Connected only once the assistant's audio is attached and the service is ready, so its
    // first words are never cut off.
    await step(Promise.all([conn.link.opened, conn.track, conn.ready]));
  } catch (err) {
    conn.abort.abort();
    conn.link.destroy();
    if (err instanceof VoiceSessionError) throw err;
    throw new VoiceSessionError('connection_failed', `Connection failed: ${(err as Error)?.message ?? err}`, { cause: err });
  } finally {
    limit.clear();
  }
}

/**
 * Runs `attempt` (given its number, from 1, and the ms left) until it succeeds, pausing 250 ms
 * doubling up to 2 s between tries. Gives up, throwing the last failure, once `timeoutMs` is spent
 * or the service refused; stops trying when `stopped()`.
 */
export async function retry<T>(timeoutMs: number, stopped: () => boolean, attempt: (n: number, leftMs: number) => Promise<T>): Promise<T> {
  const until = Date.now() + timeoutMs;
  let cause: unknown;
  for (let n = 1; !stopped(); n++) {
    try {
      return await attempt(n, Math.max(1, until - Date.now()));
    } catch (err) {
      cause = err;
      const left = until - Date.now();
      if (left <= 0 || refused(err)) break;
      await sleep(Math.min(250 * 2 ** (n - 1), 2000, left));
    }
  }
  throw cause;
}
