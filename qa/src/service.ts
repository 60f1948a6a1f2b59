import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NetworkProfileName } from 'kb-voice-emulator/lab';
import type { WorkerEmulatorOptions } from './types.js';

/** Where calls go: a relay (and, with `emulator: true`, the emulator behind it). */
export interface VoiceService {
  relayUrl: string;
  aiId: string;
  /** Set when the service is an emulator this package may script (`PUT /_emulator/script`). */
  emulatorUrl: string | undefined;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
/** The bounds of `endOfSpeechMs`: shorter ends questions at a breath; longer keeps a caller waiting for no reason. */
const END_OF_SPEECH_MS = { min: 100, max: 10_000 } as const;

/** An emulator and a relay (admin role, as the QA page) on ephemeral loopback ports. */
export async function startEmulatorService(options: WorkerEmulatorOptions = {}): Promise<VoiceService> {
  let emulatorModule: typeof import('kb-voice-emulator');
  try {
    emulatorModule = await import('kb-voice-emulator');
  } catch (cause) {
    throw new Error('kb-voice-qa: voice: { emulator: true } needs kb-voice-emulator: npm install -D kb-voice-emulator', { cause });
  }
  const { createRelay, serveRelay } = await import('kb-voice/relay');
  const { endOfSpeechMs } = options;
  if (endOfSpeechMs !== undefined && !(Number.isInteger(endOfSpeechMs) && endOfSpeechMs >= END_OF_SPEECH_MS.min && endOfSpeechMs <= END_OF_SPEECH_MS.max)) {
    throw new RangeError(`kb-voice-qa: voice.emulator.endOfSpeechMs must be an integer from ${END_OF_SPEECH_MS.min} to ${END_OF_SPEECH_MS.max} (ms), got ${String(endOfSpeechMs)}`);
  }
  const realtime = {
    ...(options.voice === undefined ? {} : { voice: options.voice }),
    ...(endOfSpeechMs === undefined ? {} : { vad: { stopMs: endOfSpeechMs } }),
  };
  const emulator = await emulatorModule.startEmulator({
    host: HOST,
    port: 0,
    ...(options.agentBuildMs === undefined ? {} : { agentBuildMs: options.agentBuildMs }),
    ...(Object.keys(realtime).length ? { realtime } : {}),
    // Checked by the emulator: an unknown profile is a RangeError naming the known ones.
    ...(options.network === undefined ? {} : { network: options.network as NetworkProfileName }),
  });
  try {
    // A fresh emulator's robot pays its agent build (5.7 s by default) on the first realtime task:
    // warm it here (E1, which waits for the build) so the first test measures answers, not the build.
    if (!options.coldRobot) await warmRobot(emulator.url, emulator.apiKey, emulator.fixtures.robotId);
    const relay = createRelay({
      upstream: emulator.url,
      apiKey: emulator.apiKey,
      prefix: '/api/voice',
      // Test pages are served on the relay's own origin (page.route), so no other origin is allowed.
      robots: '*', authorize: async () => ({ role: 'admin', userIdentifier: 'kb-voice-qa' }),
      // Grants of this worker's relay only (random per run): also what keeps the relay from warning
      // "authorize without a secret" on every run, which the user could not act on.
      secret: randomUUID(),
    });
    const server = await serveRelay(relay, { host: HOST, port: 0 });
    return {
      relayUrl: `${server.url.replace(/\/+$/, '')}/api/voice`,
      aiId: emulator.fixtures.robotId,
      emulatorUrl: emulator.url,
      async close() {
        await server.close().catch(() => undefined);
        await emulator.close();
      },
    };
  } catch (error) {
    await emulator.close();
    throw error;
  }
}

/**
 * E1 for `aiId` at `baseUrl` (the emulator with its key, or a relay without one), waiting for the
 * agent build; a failed warmup is an error (the suite would measure the build).
 */
export async function warmRobot(baseUrl: string, apiKey: string | undefined, aiId: string, language = 'en'): Promise<void> {
  const { createApiClient } = await import('kb-voice/api');
  const api = createApiClient({ baseUrl, ...(apiKey ? { apiKey } : {}), timeout: WARMUP_TIMEOUT_MS });
  const answer = await api.realtime.warmup(aiId, { language });
  if (!answer.success) throw new Error(`kb-voice-qa: warming the robot ${aiId} at ${baseUrl} failed (E1 answered success: false)`);
}

/** Longest wait for a robot's warmup (the emulator's build takes agentBuildMs; its CLI allows up to 600 s). */
export const WARMUP_TIMEOUT_MS = 120_000;

/**
 * How many times a script PUT that could not reach the emulator (no answer: a refused or reset
 * connection, a kept-alive one the emulator closed as it was reused) is sent in all. The PUT
 * replaces the session's queue, so sending it again is safe; an answer, even an error, is final.
 */
export const SCRIPT_ATTEMPTS = 3;

/** Queues `words` as what the emulator recognizes next in that session (replacing its queue); without a session (not known yet), in the emulator-wide queue. */
export async function scriptTranscript(emulatorUrl: string, sessionId: string | undefined, words: string): Promise<void> {
  let response: Response | undefined;
  for (let attempt = 1; !response; attempt++) {
    try {
      response = await fetch(`${emulatorUrl.replace(/\/+$/, '')}/_emulator/script`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...(sessionId === undefined ? {} : { session_id: sessionId }), utterances: [words] }),
      });
    } catch (cause) {
      if (attempt >= SCRIPT_ATTEMPTS) throw new Error(`kb-voice-qa: could not reach the emulator at ${emulatorUrl} to script the transcript (${SCRIPT_ATTEMPTS} attempts)`, { cause });
      await sleep(100 * attempt);
    }
  }
  if (!response.ok) throw new Error(`kb-voice-qa: PUT /_emulator/script answered ${response.status}: ${await response.text()}`);
}
