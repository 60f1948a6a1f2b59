import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmulator, type Emulator } from 'kb-voice-emulator';
import { createRelay, serveRelay } from 'kb-voice/relay';

/** An emulator and a relay on loopback for load tests, and a folder for their files. */
export interface LoadStack {
  emu: Emulator;
  relay: { url: string; close(): Promise<void> };
  /** Base URL of the relay's routes (`…/api/voice`), as a load test's `target`. */
  target: string;
  dir: string;
  close(): Promise<void>;
}

/**
 * Starts the stack the load tests call through: an emulator (robot build `agentBuildMs`) and, as the
 * demo's relay, one with role `admin` (so each call's `user_identifier` is its own), plus a
 * temporary folder named with `dirPrefix`. `close()` stops both and removes the folder.
 */
export async function startLoadStack(options: { agentBuildMs: number; dirPrefix: string }): Promise<LoadStack> {
  const emu = await startEmulator({ host: '127.0.0.1', port: 0, agentBuildMs: options.agentBuildMs });
  let relay: LoadStack['relay'];
  try {
    relay = await serveRelay(createRelay({ upstream: emu.url, apiKey: emu.apiKey, prefix: '/api/voice', authorize: async () => ({ role: 'admin', userIdentifier: 'qa' }), robots: '*' }), { host: '127.0.0.1', port: 0 });
  } catch (error) {
    await emu.close();
    throw error;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), options.dirPrefix));
  return {
    emu,
    relay,
    target: `${relay.url.replace(/\/+$/, '')}/api/voice`,
    dir,
    async close() {
      await relay.close();
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
