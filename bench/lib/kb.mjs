// Loads the BUILT package through its own name (package self-reference: bench/ is inside the
// kb-voice package, so `kb-voice/...` resolves via package.json `exports` to dist/), after making
// sure dist/ is built. Dynamic imports so that the build can run first.
//
// BENCH_DIST=/abs/copy/of/dist (a snapshot inside the repo, e.g. bench/.cache/dist) makes the
// benchmarks use that copy instead: dist/ is rebuilt from scratch by `npm test`/`npm run build`,
// and a benchmark must not see it vanish half way when other work runs on the machine.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from './common.mjs';

const SUBPATHS = { '': 'index.js', relay: 'relay/index.js', schemas: 'schemas/index.js' };

/** Absolute file of an entry in BENCH_DIST, or null to use the package's own exports. */
export function snapshotEntry(sub = '') {
  const dir = process.env.BENCH_DIST;
  return dir ? path.join(path.resolve(dir), SUBPATHS[sub]) : null;
}

function load(sub) {
  const file = snapshotEntry(sub);
  if (file) return import(pathToFileURL(file).href);
  ensureBuilt();
  return import(sub ? `kb-voice/${sub}` : 'kb-voice');
}

// The emulator is the workspace package kb-voice-emulator (its own emulator/dist; BENCH_DIST does
// not snapshot it).
export const loadEmulator = () => {
  ensureBuilt();
  return import('kb-voice-emulator');
};
/** The emulator's network lab (kb-voice-emulator/lab), from the same emulator/dist. */
export const loadLab = () => {
  ensureBuilt();
  return import('kb-voice-emulator/lab');
};
export const loadRelay = () => load('relay');
export const loadSchemas = () => load('schemas');
export const loadClient = () => load('');

/** Node WebRTC for VoiceSession's `wrtc` option. */
export async function loadWrtc() {
  const mod = await import('@roamhq/wrtc');
  return mod.default ?? mod;
}

/** The emulator's control plane (loopback only, no key). */
export function control(emulatorUrl) {
  const call = async (method, path, body) => {
    const res = await fetch(`${emulatorUrl}${path}`, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${await res.text()}`);
    const text = await res.text();
    return text ? JSON.parse(text) : null;
  };
  return {
    fixtures: () => call('GET', '/_emulator/fixtures'),
    reset: () => call('POST', '/_emulator/reset'),
    faults: (f) => call('PUT', '/_emulator/faults', f),
    /** Seeds N past sessions of K turns (POST /_emulator/history); resolves `{ sessions }`. */
    history: (sessions, turnsPerSession) => call('POST', '/_emulator/history', { sessions, ...(turnsPerSession ? { turnsPerSession } : {}) }),
  };
}
