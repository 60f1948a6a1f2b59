import { VoiceSessionError } from '../client/errors.js';

/**
 * What the widget says when something goes wrong: what happened and what the visitor can do about
 * it, for every code of {@link VoiceSessionError}. Visitors are not developers, except for the
 * codes only a page's author can fix (`not_found`: the `ai-id` attribute).
 */
const WORDS: Record<VoiceSessionError['code'], string> = {
  microphone_denied: 'Microphone access was refused. Allow the microphone for this site (the icon in the address bar), then start the call again.',
  microphone_unavailable: 'No microphone could be opened. Connect one, or close other apps that use it, then start the call again.',
  webrtc_unsupported: 'This browser cannot make voice calls (no WebRTC). Open this page in a current Chrome, Edge, Firefox or Safari.',
  unauthorized: 'You are not allowed to use this assistant right now. Sign in to the site, then start the call again.',
  not_found: 'This assistant was not found. The page\u2019s author should check the widget\u2019s ai-id attribute.',
  rate_limited: 'The assistant is busy. Wait a moment, then start the call again.',
  service_unavailable: 'The voice service is unavailable right now. Try again in a minute.',
  signaling_failed: 'The call could not be set up. Try again in a minute.',
  connection_failed: 'The call could not connect: your network may block calls. Try another network, then start the call again.',
  connection_lost: 'The call was lost and could not be restored. Start a new call.',
  session_reset: 'The call was restored, but the assistant restarted and no longer remembers the earlier part of it; the call goes on.',
  device_lost: 'The microphone stopped (unplugged, switched off or taken by another app). The call goes on with the default microphone.',
  device_unavailable: 'That speaker or headset cannot be used. Choose another one.',
  not_supported: 'This browser cannot do that here.',
  protocol_error: 'The assistant sent something unexpected; the call goes on. If it stops working, start a new call.',
  server_error: 'The assistant reported a problem; the call goes on. If it stops working, start a new call.',
  playback_blocked: 'Your browser blocked the assistant\u2019s sound. Press \u201cEnable sound\u201d to hear it.',
  not_connected: 'There is no call yet: start a call first.',
  session_ended: 'This call has ended: start a new call.',
  no_session: 'This call has ended: start a new call.',
  report_failed: 'The call\u2019s report could not be loaded. Try again later.',
};

/** A sentence for any error the widget meets (a VoiceSessionError, a local validation error, anything else). */
export function describeError(error: unknown): string {
  if (error instanceof VoiceSessionError || isCoded(error)) {
    const words = WORDS[error.code as VoiceSessionError['code']];
    if (words && error.code === 'rate_limited' && typeof (error as VoiceSessionError).retryAfterMs === 'number') {
      const seconds = Math.max(1, Math.ceil((error as VoiceSessionError).retryAfterMs! / 1000));
      return `The assistant is busy. Wait ${seconds} s, then start the call again.`;
    }
    if (words) return words;
    if (error.code === 'validation_error') return 'That question could not be sent: it is empty or too long.';
  }
  return 'Something went wrong. Start the call again; if it keeps failing, reload the page.';
}

function isCoded(error: unknown): error is { code: string } {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}
