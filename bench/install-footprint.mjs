#!/usr/bin/env node
// Benchmark: what `npm install <sdk>` puts into an empty app — node_modules bytes, package count,
// native binaries, install scripts — for kb-voice (packed from this repo, as published) and for
// other voice SDKs at the versions of bench/competitors/package.json, all installed the same way in
// the same run (`npm install --ignore-scripts --prefer-offline` from the registry into an empty
// app). Targets for kb-voice: <= 13 MB on disk (du), <= 3 packages (kb-voice, zod, eventemitter3), 0 native binaries, 0 install scripts, and
// smaller than every peer measured. The package checks enforce the same targets on every npm test.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { measureInstall } from '../scripts/lib/install-footprint.mjs';
import { benchDir, ensureBuilt, log, root, runBenchmark } from './lib/common.mjs';

const LIMITS = { diskBytes: 13_000_000, packages: 4 };
const PEERS = ['@vapi-ai/web', 'livekit-client', '@elevenlabs/client', '@openai/agents-realtime', 'ultravox-client'];

function npm(args, cwd) {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 240_000 });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')}: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`);
  return r.stdout;
}

async function installInto(work, name, spec) {
  const app = path.join(work, name.replace(/[@/]/g, '_'));
  mkdirSync(app, { recursive: true });
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', spec], app);
  return measureInstall(path.join(app, 'node_modules'));
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

async function main() {
  ensureBuilt();
  const work = mkdtempSync(path.join(os.tmpdir(), 'kbv-install-'));
  try {
    const packed = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], root))[0];
    const ours = await installInto(work, 'kb-voice', path.join(work, packed.filename));
    const versions = JSON.parse(readFileSync(path.join(benchDir, 'competitors', 'package.json'), 'utf8')).devDependencies;
    const rows = [{ name: 'kb-voice', ...ours }];
    const notes = [];
    for (const peer of PEERS) {
      try {
        log(`installing ${peer}@${versions[peer]}…`);
        rows.push({ name: `${peer}@${versions[peer]}`, ...(await installInto(work, peer, `${peer}@${versions[peer]}`)) });
      } catch (error) {
        notes.push(`${peer}: could not be installed here (${String(error.message ?? error)})`);
      }
    }
    const peers = rows.slice(1);
    const smallestPeer = peers.length ? Math.min(...peers.map((p) => p.bytes)) : null;
    const figures = [
      { label: 'kb-voice node_modules on disk (du)', value: `${mb(ours.diskBytes)} (files ${mb(ours.bytes)})`, target: `<= ${mb(LIMITS.diskBytes)}`, met: ours.diskBytes <= LIMITS.diskBytes },
      { label: 'kb-voice packages', value: `${ours.packages.length} (${ours.packages.join(', ')})`, target: `<= ${LIMITS.packages}`, met: ours.packages.length <= LIMITS.packages },
      { label: 'kb-voice native binaries / install scripts', value: `${ours.nativeBinaries.length} / ${ours.installScripts.length}`, target: '0 / 0', met: ours.nativeBinaries.length === 0 && ours.installScripts.length === 0 },
      {
        label: 'smaller than every peer SDK',
        value: smallestPeer === null ? 'no peer installed' : `${mb(ours.bytes)} vs smallest peer ${mb(smallestPeer)}`,
        target: 'smaller',
        met: smallestPeer === null ? null : ours.bytes < smallestPeer,
      },
      ...peers.map((p) => ({
        label: p.name,
        value: `${mb(p.bytes)}, ${p.packages.length} packages, ${p.nativeBinaries.length} native, ${p.installScripts.length} install scripts`,
      })),
    ];
    return { name: 'install-footprint', title: 'Install footprint (npm install into an empty app)', ok: true, figures, notes, details: { rows } };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runBenchmark('install-footprint', 'Install footprint (npm install into an empty app)', main);
}
