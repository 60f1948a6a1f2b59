/**
 * Turns any error the library can throw or emit into a sentence a tester can act on. The page
 * shows these in the error box; the console only gets the raw object for debugging.
 */

interface CodedError {
  name?: string;
  message?: string;
  code?: string;
  status?: number;
  detail?: unknown;
  cause?: unknown;
}

const VOICE_MESSAGES: Record<string, string> = {
  microphone_denied:
    'Microphone access was denied. Allow the microphone for this page in the browser (address bar → site settings) and start the call again.',
  microphone_unavailable:
    'No usable microphone was found. Plug one in or pick another input device, then start the call again.',
  webrtc_unsupported: 'This browser cannot make voice calls (no WebRTC). Use a current Chrome, Edge, Firefox or Safari.',
  unauthorized: 'The voice service refused this page (not logged in, or the relay is not allowed to call it).',
  not_found: 'The voice service does not know this robot: check ?ai_id= in the address.',
  rate_limited: 'Too many calls right now: wait a moment and start the call again.',
  service_unavailable: 'The voice service is unreachable or failing right now. Try again in a moment.',
  signaling_failed: 'The call could not be set up: the voice service refused or did not answer the connection request.',
  connection_failed: 'The audio connection could not be established (WebRTC failed).',
  connection_lost: 'The connection was lost and could not be restored in time.',
  session_reset: 'The voice service restarted during the call and lost its earlier part: the call goes on, its turn numbers start again at 1.',
  protocol_error: 'The voice service sent a message this page does not understand.',
  playback_blocked: 'The browser blocked sound playback. Press "Enable sound" to hear the assistant.',
  not_connected: 'There is no active call: start one first.',
  session_ended: 'This call has ended: start a new one.',
  no_session: 'The call ended before the service opened a session: there is nothing to report.',
};

/** A human sentence for `error`, including the server's own explanation when there is one. */
export function describeError(error: unknown): string {
  if (!error || typeof error !== 'object') return `Unexpected error: ${String(error)}`;
  const e = error as CodedError;
  const code = e.code ?? '';
  const base = VOICE_MESSAGES[code];
  const reason = serverReason(e) ?? serverReason(e.cause as CodedError | undefined);
  if (base) return reason && !base.includes(reason) ? `${base} (${reason})` : base;
  if (code === 'validation_error') return `The request was rejected as invalid: ${validationText(e.detail)}`;
  if (code === 'timeout') return 'The service did not answer in time. Try again.';
  if (code === 'network_error') return 'The page could not reach its server (network error). Is the demo still running?';
  if (typeof e.status === 'number') {
    const what = STATUS_WORDS[e.status] ?? `The service answered with an error (HTTP ${e.status})`;
    return reason ? `${what}: ${reason}` : `${what}.`;
  }
  return e.message ? e.message : 'Something went wrong.';
}

const STATUS_WORDS: Record<number, string> = {
  401: 'Not authorised',
  403: 'Forbidden',
  404: 'Not found (unknown robot or session)',
  413: 'The request was too large',
  429: 'Too many requests, slow down',
  502: 'The voice service is unreachable (bad gateway)',
  504: 'The voice service timed out',
};

function serverReason(e: CodedError | undefined): string | undefined {
  if (!e) return undefined;
  const body = (e as { body?: unknown }).body;
  if (body && typeof body === 'object' && 'detail' in body) {
    const detail = (body as { detail: unknown }).detail;
    if (typeof detail === 'string') return detail;
    if (Array.isArray(detail)) return validationText(detail);
  }
  return undefined;
}

function validationText(detail: unknown): string {
  if (!Array.isArray(detail)) return 'no details given';
  return detail
    .map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).join('.')}: ${d.msg ?? 'invalid'}`)
    .join('; ');
}
