import { createApiClient } from '../../src/api/index.js';
import { startEmulator, type Emulator, type EmulatorOptions } from 'kb-voice-emulator';

/** Starts an emulator on an ephemeral loopback port with fast timings, plus a client for it. */
export async function start(options: EmulatorOptions = {}) {
  const emu: Emulator = await startEmulator({ port: 0, agentBuildMs: 300, fileLearningMs: 400, ...options });
  const api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey, retry: 0, timeout: 10_000 });
  const { robotId, datasetId } = emu.fixtures;
  /** Raw request (for what the client refuses to send: bad input, no key). */
  const raw = (method: string, path: string, init: { body?: unknown; key?: string | null; query?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (init.key !== null) headers.authorization = `Bearer ${init.key ?? emu.apiKey}`;
    let body: string | undefined;
    if (init.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    }
    return fetch(`${emu.url}${path}${init.query ? `?${init.query}` : ''}`, { method, headers, body });
  };
  return { emu, api, robotId, datasetId, raw };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
