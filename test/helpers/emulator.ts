import { afterAll, afterEach, beforeAll } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions } from 'kb-voice-emulator';
import { createApiClient, type ApiClient } from '../../src/api/index.js';

/**
 * The emulator for a test file: one server per file, the seeded state restored after every test.
 *
 * Why one per file: starting an emulator (seed, audio directory, listening socket) costs far more
 * than a `POST /_emulator/reset`, and a fresh server per test only hid state leaking between tests
 * instead of proving reset restores it. Files that need options a reset cannot undo (a short URL
 * lifetime, a session cap) start their own with {@link startTestEmulator}.
 */

/** Fast timings for tests: a cold agent costs 300 ms, file learning 400 ms. */
export const TEST_EMULATOR_OPTIONS = { port: 0, agentBuildMs: 300, fileLearningMs: 400 } satisfies EmulatorOptions;

/**
 * The emulator's realtime settings for a test that speaks one question through a caller in this
 * same process and reads it back as one turn: end of speech after 2 s of silence (default 600 ms).
 * On a starved CPU a stall stops this process's microphone too, the receiver fills the gap with
 * silence, and 600 ms of it split the question in two; the tail became the turn read (busy-core runs
 * of 2026-11-29: test/client/emulator.test.ts, test/emulator/script.test.ts,
 * test/client/pre-connect-emulator.test.ts). The stalls seen were under 1 s. A real caller, in a
 * process of its own, has no such pause.
 */
export const ONE_QUESTION_REALTIME = { vad: { stopMs: 2000 } } satisfies EmulatorOptions['realtime'];

export interface RawInit {
  body?: unknown;
  /** The bearer: the emulator's key by default, null for none. */
  key?: string | null;
  query?: string;
}

export interface TestEmulator {
  emu: Emulator;
  api: ApiClient;
  url: string;
  apiKey: string;
  robotId: string;
  datasetId: string;
  /** A request as sent, for what the API client refuses to send (bad input, no key). */
  raw(method: string, path: string, init?: RawInit): Promise<Response>;
  /** `PUT /_emulator/faults`. */
  setFaults(faults: { warmup?: 'ok' | 'fail' | 'hang'; latencyMs?: number }): Promise<void>;
  /** `POST /_emulator/reset`: the seeded data back, faults cleared, agents cold, script empty. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** Starts an emulator on an ephemeral loopback port, plus an API client for it. The caller closes it. */
export async function startTestEmulator(options: EmulatorOptions = {}): Promise<TestEmulator> {
  const emu = await startEmulator({ ...TEST_EMULATOR_OPTIONS, ...options });
  const api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey, retry: 0, timeout: 10_000 });
  const raw = (method: string, path: string, init: RawInit = {}) => {
    const headers: Record<string, string> = {};
    if (init.key !== null) headers.authorization = `Bearer ${init.key ?? emu.apiKey}`;
    let body: string | undefined;
    if (init.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    }
    return fetch(`${emu.url}${path}${init.query ? `?${init.query}` : ''}`, { method, headers, body });
  };
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await raw(method, path, { key: null, body });
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  };
  return {
    emu,
    api,
    url: emu.url,
    apiKey: emu.apiKey,
    // Getters: the seeded ids are re-read after a reset.
    get robotId() {
      return emu.fixtures.robotId;
    },
    get datasetId() {
      return emu.fixtures.datasetId;
    },
    raw,
    setFaults: (faults) => control('PUT', '/_emulator/faults', faults),
    reset: () => control('POST', '/_emulator/reset'),
    close: () => emu.close(),
  };
}

/**
 * The file's shared emulator: started in `beforeAll`, reset in `afterEach` (so a failing test
 * leaks no faults, sessions or data into the next), closed in `afterAll`. Read its members inside
 * hooks and tests, not at collection time.
 */
export function useEmulator(options: EmulatorOptions = {}): TestEmulator {
  let current: TestEmulator | undefined;
  const get = (): TestEmulator => {
    if (!current) throw new Error('useEmulator(): the emulator starts in beforeAll; read it inside a hook or a test');
    return current;
  };
  beforeAll(async () => {
    current = await startTestEmulator(options);
  });
  afterEach(async () => {
    await current?.reset();
  });
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    get emu() { return get().emu; },
    get api() { return get().api; },
    get url() { return get().url; },
    get apiKey() { return get().apiKey; },
    get robotId() { return get().robotId; },
    get datasetId() { return get().datasetId; },
    raw: (...args) => get().raw(...args),
    setFaults: (faults) => get().setFaults(faults),
    reset: () => get().reset(),
    close: () => get().close(),
  };
}
