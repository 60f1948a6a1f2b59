import { describe, expect, it } from 'vitest';
import { defineKbVoiceWidget, KbVoiceWidget, WIDGET_TAG } from 'kb-voice/widget';
import { describeError } from '../../src/widget/messages.js';
import { VoiceSessionError, type VoiceErrorCode } from 'kb-voice';

// Server-side rendering imports the widget too (Next.js, Nuxt, SvelteKit, Angular Universal):
// there is no DOM there, and nothing may throw.
describe('kb-voice/widget without a DOM (SSR)', () => {
  it('imports, exports the element class and registers nothing', () => {
    expect(typeof HTMLElement).toBe('undefined');
    expect(typeof KbVoiceWidget).toBe('function');
    expect(WIDGET_TAG).toBe('kb-voice-widget');
    expect(defineKbVoiceWidget()).toBe(false);
  });
});

describe('error words', () => {
  const codes: VoiceErrorCode[] = [
    'microphone_denied', 'microphone_unavailable', 'webrtc_unsupported', 'unauthorized', 'not_found', 'rate_limited',
    'service_unavailable', 'signaling_failed', 'connection_failed', 'connection_lost', 'session_reset', 'protocol_error', 'server_error',
    'playback_blocked', 'not_connected', 'session_ended', 'no_session', 'report_failed',
  ];
  it('every code has its own sentence, none the generic one', () => {
    const generic = describeError(new Error('x'));
    for (const code of codes) expect(describeError(new VoiceSessionError(code, 'm')), code).not.toBe(generic);
  });
  it('says how long to wait when the service said so', () => {
    expect(describeError(new VoiceSessionError('rate_limited', 'm', { retryAfterMs: 2500 }))).toBe('The assistant is busy. Wait 3 s, then start the call again.');
  });
});
