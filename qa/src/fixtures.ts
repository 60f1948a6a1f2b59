import { test as base, type Page } from '@playwright/test';
import { PageBridge } from './bridge.js';
import { Call, DEFAULT_TURN_TIMEOUT_MS } from './call.js';
import { startHarnessCall } from './start.js';
import { startEmulatorService, type VoiceService } from './service.js';
import type { CallOptions, VoiceOptions } from './types.js';

/** The `voiceCall` fixture: starts harness calls, or attaches to the calls an app's page makes. */
export interface VoiceCallFixture {
  /** The relay base URL calls use (with `emulator: true`, the worker's relay). */
  readonly relayUrl: string;
  /** The robot calls talk to (with `emulator: true`, the seeded robot). */
  readonly aiId: string;
  /** The emulator behind the relay when there is one (`emulator: true`, or the `emulatorUrl` option); its control routes need no key. */
  readonly emulatorUrl: string | undefined;
  /**
   * Opens a harness page (on the relay's origin) running `VoiceSession` with these options and
   * resolves once the call is connected; rejects with the session's error when it fails.
   */
  start(options?: CallOptions): Promise<Call>;
  /**
   * Puts the fake microphone and the `__KB_VOICE_HOOK__` into `page`; call it before
   * `page.goto()`. Every `VoiceSession` the page creates then registers itself.
   */
  install(page: Page): Promise<void>;
  /** The next session the page created (after install) as a `Call`, once it is connected. */
  attach(page: Page, options?: { timeout?: number }): Promise<Call>;
}

interface VoiceTestFixtures {
  voiceCall: VoiceCallFixture;
}
/** The worker option of `test`, for a typed config: `defineConfig<{}, VoiceWorkerOptions>({ use: { voice } })`. */
export interface VoiceWorkerOptions {
  voice: VoiceOptions;
  /**
   * Emulator only: every call's media goes through kb-voice-emulator's network lab under this
   * profile (`wifi`, `4g`, `congested-wifi`, `satellite`, `3g-poor`; `PROFILE_NAMES` of
   * `kb-voice-emulator/lab`). Unset: loopback as it is.
   */
  network: string | undefined;
}

interface VoiceWorkerFixtures extends VoiceWorkerOptions {
  _kbVoiceService: VoiceService;
}

/** Playwright's `test` with the `voice` option and the `voiceCall` fixture. */
export const test = base.extend<VoiceTestFixtures, VoiceWorkerFixtures>({
  voice: [{ emulator: true }, { option: true, scope: 'worker' }],
  network: [undefined, { option: true, scope: 'worker' }],

  _kbVoiceService: [
    async ({ voice, network }, use) => {
      if ('emulator' in voice) {
        const service = await startEmulatorService({ ...(voice.emulator === true ? {} : voice.emulator), ...(network ? { network } : {}) });
        await use(service);
        await service.close();
        return;
      }
      if (!voice.relayUrl || !voice.aiId) throw new Error('kb-voice-qa: the voice option needs { relayUrl, aiId } or { emulator: true }');
      if (network) throw new Error(`kb-voice-qa: network: '${network}' applies to calls on the local emulator only (voice: { emulator: true })`);
      await use({ relayUrl: voice.relayUrl, aiId: voice.aiId, emulatorUrl: voice.emulatorUrl, close: async () => undefined });
    },
    { scope: 'worker' },
  ],

  voiceCall: async ({ voice, network, _kbVoiceService: service, context }, use, testInfo) => {
    const calls: Call[] = [];
    const language = voice.language ?? 'en';
    const track = (page: Page, mirror: Awaited<ReturnType<PageBridge['next']>>) => {
      const recordingOrigins = 'recordingOrigins' in voice ? voice.recordingOrigins ?? [] : [];
      const call = new Call(page, mirror, { testInfo, number: calls.length + 1, emulatorUrl: service.emulatorUrl, relayUrl: service.relayUrl, aiId: service.aiId, network: network ?? null, recordingOrigins });
      calls.push(call);
      return call;
    };
    const fixture: VoiceCallFixture = {
      relayUrl: service.relayUrl,
      aiId: service.aiId,
      emulatorUrl: service.emulatorUrl,
      async install(page) {
        await PageBridge.install(page);
      },
      async attach(page, options = {}) {
        const bridge = PageBridge.of(page);
        if (!bridge) throw new Error('kb-voice-qa: attach(page) needs voiceCall.install(page) before page.goto()');
        const timeout = options.timeout ?? DEFAULT_TURN_TIMEOUT_MS;
        const call = track(page, await bridge.next(timeout));
        await call.waitConnected(timeout);
        return call;
      },
      async start(options = {}) {
        return startHarnessCall(await context.newPage(), service, { language, ...options }, (page, mirror) => track(page, mirror));
      },
    };
    await use(fixture);
    // Calls the test left open end here, so every call leaves its evidence.
    for (const call of calls) await call.settle();
  },
});
