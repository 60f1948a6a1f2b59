#!/usr/bin/env node
// Installs the app matrix (test/apps/matrix) as users install kb-voice: `npm pack` of the three packages
// (kb-voice, kb-voice-emulator, kb-voice-qa; dist/ must be built) into test/apps/matrix/.packs, then `npm ci`
// from test/apps/matrix/package-lock.json. A stamp in test/apps/matrix/node_modules says what was installed:
// nothing is done when neither the lockfile nor a tarball changed, only the three packages are replaced when
// only the tarballs changed (~10 s), and `npm ci` runs when the lockfile changed or on a clean clone (~100 s).
//
// Only the npm registry is needed: no browser download (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1: kb-voice-qa's
// peer @playwright/test comes along, Chromium is the system's), no Next.js telemetry
// (NEXT_TELEMETRY_DISABLED=1); Next's compiler is its platform package from npm. No install script runs.
//
// The lockfile pins every registry package; the three tarballs are listed without `integrity`
// (a tarball changes with every source change; npm checks integrity only where the lockfile has one).
// `node test/apps/matrix/install.mjs --update-lock` re-resolves after package.json changed (then commit the lock).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const apps = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(apps, '../../..');
const packs = path.join(apps, '.packs');
const lockFile = path.join(apps, 'package-lock.json');
const stampFile = path.join(apps, 'node_modules', '.kb-voice-apps-stamp');
const env = { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', NEXT_TELEMETRY_DISABLED: '1' };
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(args, cwd) {
  const result = spawnSync(npm, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout}${result.stderr}`);
    throw new Error(`npm ${args.join(' ')} failed in ${path.relative(root, cwd) || '.'}`);
  }
  return result.stdout;
}

/** The three tarballs, packed afresh (npm pack output is reproducible: same files, same bytes). */
function pack() {
  rmSync(packs, { recursive: true, force: true });
  mkdirSync(packs, { recursive: true });
  if (!existsSync(path.join(root, 'dist', 'index.js'))) throw new Error('dist/ is not built: node scripts/build.mjs');
  run(['pack', '--workspaces', '--include-workspace-root', '--pack-destination', packs, '--silent'], root);
  return readdirSync(packs).filter((name) => name.endsWith('.tgz')).sort();
}

/** Drops the tarballs' integrity from the lockfile (see above). */
function unpinTarballs() {
  const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key && String(entry.resolved ?? '').startsWith('file:')) delete entry.integrity;
  }
  writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`);
}

const started = Date.now();
const tarballs = pack();
if (process.argv.includes('--update-lock')) {
  run(['install', '--no-audit', '--no-fund', '--package-lock-only'], apps);
  unpinTarballs();
}
const lockHash = sha256([readFileSync(lockFile)]);
const packsHash = sha256(tarballs.flatMap((name) => [name, readFileSync(path.join(packs, name))]));
const stamp = readStamp();
const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
if (stamp.lock === lockHash && stamp.packs === packsHash) {
  console.log(`test/apps/matrix: install up to date (${tarballs.join(', ')}), ${seconds()} s`);
} else if (stamp.lock === lockHash) {
  // Only the tarballs changed (any source change does): replace the three packages, keep the rest (~10 s instead
  // of a whole `npm ci`). npm resolves nothing new unless a package's dependencies changed: then the lockfile
  // would change, which is refused (update it with --update-lock and commit it).
  const lockBefore = readFileSync(lockFile);
  for (const name of ['kb-voice', 'kb-voice-emulator', 'kb-voice-qa']) rmSync(path.join(apps, 'node_modules', name), { recursive: true, force: true });
  run(['install', '--no-audit', '--no-fund', '--prefer-offline'], apps);
  if (!readFileSync(lockFile).equals(lockBefore)) {
    writeFileSync(lockFile, lockBefore);
    throw new Error('test/apps/matrix: the new tarballs need other dependencies than its lockfile has: node test/apps/matrix/install.mjs --update-lock, then commit test/apps/matrix/package-lock.json');
  }
  writeFileSync(stampFile, JSON.stringify({ lock: lockHash, packs: packsHash }));
  console.log(`test/apps/matrix: ${tarballs.join(', ')} reinstalled in ${seconds()} s (the rest as installed)`);
} else {
  run(['ci', '--no-audit', '--no-fund', '--prefer-offline'], apps);
  writeFileSync(stampFile, JSON.stringify({ lock: lockHash, packs: packsHash }));
  console.log(`test/apps/matrix: installed from the lockfile and ${tarballs.join(', ')} in ${seconds()} s`);
}

function sha256(parts) {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
}

/** What the last install recorded (`{ lock, packs }`); nothing when there is no stamp or an unreadable one. */
function readStamp() {
  try {
    return JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return {};
  }
}
