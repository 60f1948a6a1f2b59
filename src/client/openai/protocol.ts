import { VoiceSessionError } from '../errors.js';
import { interruptionMode, type RealtimeProtocol, type SignalingRequest } from '../realtime-protocol.js';
import { openaiCodec } from './codec.js';

/** Options of {@link openaiProtocol}. */
export interface OpenAIProtocolOptions {
  /** Your relay's base URL (its prefix), e.g. `/api/voice`. */
  relayUrl: string;
  /**
   * `unified` (default): the offer goes to the relay's `…/realtime/calls`, which forwards it with its
   * key. `client_secret`: the relay mints an `ek_…` (`…/realtime/client_secrets`) and the browser posts
   * its offer straight to `callsUrl` with it.
   */
  signaling?: 'unified' | 'client_secret';
  /** With `client_secret`: the OpenAI-compatible `/v1/realtime/calls` URL of the service. */
  callsUrl?: string;
  /** fetch to use (default the global one). */
  fetch?: typeof fetch;
}

/** An HTTP failure of signaling, shaped like the API client's errors (`status`) so retries can tell. */
class SignalingHttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'SignalingHttpError';
  }
}

async function failure(res: Response, what: string): Promise<SignalingHttpError> {
  let detail = '';
  try {
    const body = (await res.json()) as { error?: { message?: string }; detail?: unknown };
    detail = body.error?.message ?? (typeof body.detail === 'string' ? body.detail : '');
  } catch {
    // not JSON
  }
  return new SignalingHttpError(res.status, `${what} failed with status ${res.status}${detail ? `: ${detail}` : ''}`);
}

/**
 * `turn_detection` for the call: none with push-to-talk (the client commits each utterance), the
 * server's VAD without barge-in with `interruptions: 'off'`, the service's default otherwise.
 */
function turnDetection(request: SignalingRequest): { turn_detection?: object | null } {
  if (request.turnTaking === 'push-to-talk') return { turn_detection: null };
  return interruptionMode(request.interruptions) === 'off' ? { turn_detection: { type: 'server_vad', interrupt_response: false } } : {};
}

/** The session part both signaling flows send: the conversation language and barge-in setting. */
function sessionConfig(request: SignalingRequest): object {
  return {
    type: 'realtime',
    audio: {
      input: {
        transcription: { language: request.language },
        ...turnDetection(request),
      },
    },
  };
}

/**
 * The OpenAI Realtime protocol (WebRTC, `oai-events`) for `new VoiceSession({ protocol: openaiProtocol(…) })`.
 * Same public API as the default v1 protocol: states, transcripts, turns with latency, snapshots and
 * the report. Only apps that import it ship it.
 *
 * @example
 * const session = new VoiceSession({
 *   aiId, api: createApiClient({ baseUrl: '/api/voice' }),
 *   protocol: openaiProtocol({ relayUrl: '/api/voice' }),
 * });
 */
export function openaiProtocol(options: OpenAIProtocolOptions): RealtimeProtocol {
  const base = options.relayUrl.replace(/\/+$/, '');
  if (options.signaling === 'client_secret' && !options.callsUrl) throw new TypeError('openaiProtocol: signaling "client_secret" needs callsUrl');
  return {
    channel: 'oai-events',
    async signal(offer, request) {
      const doFetch = options.fetch ?? fetch;
      if (request.sessionId) {
        // The protocol has no way to continue a call: a dropped call is not resumed (a 4xx status ends
        // the retries at once).
        throw new VoiceSessionError('signaling_failed', 'OpenAI-protocol calls cannot be resumed after the connection dropped', { status: 409 });
      }
      const robot = `${base}/v1/robots/${encodeURIComponent(request.aiId)}/realtime`;
      let res: Response;
      if (options.signaling === 'client_secret') {
        const minted = await doFetch(`${robot}/client_secrets`, {
          method: 'POST', headers: { 'content-type': 'application/json' }, signal: request.signal,
          body: JSON.stringify({ session: sessionConfig(request) }),
        });
        if (!minted.ok) throw await failure(minted, 'Minting a client secret');
        const { value } = (await minted.json()) as { value?: unknown };
        if (typeof value !== 'string') throw new VoiceSessionError('signaling_failed', 'The relay answered no client secret');
        res = await doFetch(options.callsUrl!, {
          method: 'POST', headers: { authorization: `Bearer ${value}`, 'content-type': 'application/sdp' }, body: offer.sdp, signal: request.signal,
        });
      } else {
        const form = new FormData();
        form.set('sdp', offer.sdp);
        form.set('session', JSON.stringify(sessionConfig(request)));
        res = await doFetch(`${robot}/calls`, { method: 'POST', body: form, signal: request.signal });
      }
      if (res.status !== 201) throw await failure(res, 'The call');
      const sessionId = res.headers.get('location')?.split('/').pop();
      if (!sessionId) throw new VoiceSessionError('signaling_failed', 'The call answer has no Location header (cross-origin: the server must expose it)');
      return { sessionId, sdp: await res.text() };
    },
    codec: (clock) => openaiCodec(() => clock.now()),
  };
}
