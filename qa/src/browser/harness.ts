/**
 * The harness page's script (bundled with kb-voice's browser entry into dist/harness.bundle.js by
 * scripts/build.mjs): `voiceCall.start()` configures it, then clicks Start — a real user gesture,
 * so the browser lets the call play its answers — and a `VoiceSession` starts. The page's
 * `__KB_VOICE_HOOK__` (put in by install()) registers it like any app's session.
 */
import { createApiClient, VoiceSession, type VoiceSessionOptions } from 'kb-voice';
import { withSources } from 'kb-voice/sources';

interface HarnessConfig extends Omit<VoiceSessionOptions, 'api' | 'microphone'> {
  relayUrl: string;
  microphone?: false | MediaTrackConstraints;
}

let config: HarnessConfig | undefined;
const status = document.querySelector<HTMLElement>('#status')!;

(globalThis as unknown as { __kbVoiceQaHarness: unknown }).__kbVoiceQaHarness = {
  configure(next: HarnessConfig) {
    config = next;
  },
};

document.querySelector<HTMLButtonElement>('#start')!.addEventListener('click', () => {
  if (!config) throw new Error('kb-voice-qa harness: not configured');
  const { relayUrl, microphone, ...options } = config;
  const session = new VoiceSession({
    ...options,
    api: createApiClient({ baseUrl: relayUrl }),
    // Turn.sources for expect(turn).toCite() and the report.
    sources: withSources(),
    // `microphone: false` (text-only calls) is passed through as the contract defines it.
    ...(microphone === undefined ? {} : { microphone: microphone as VoiceSessionOptions['microphone'] }),
  });
  session.on('state', (state) => (status.textContent = state.status));
  // Every failure is also in the snapshot the test reads; nothing to do here.
  session.on('error', () => undefined);
  session.start().catch(() => undefined);
});
