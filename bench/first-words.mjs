#!/usr/bin/env node
// Benchmark: first words (issue 48). On each network-lab profile, Chromium starts a call with the
// caller already asking "Hi, how long is the warranty?" at the click (kb-voice-qa's `sayAtStart`),
// once with the pre-connect buffer (default) and once without (`preConnectBuffer: false`). The
// figure is the service's: how much of the question's start its recording misses against what was
// said (qa/src/first-words.ts, `toHaveHeardFromStart`'s measure). Target: with the buffer within
// 100 ms on every profile; without it, measurably cut (more than 100 ms missing, or nothing heard).
//
// It runs kb-voice-qa's own spec qa/test/first-words.spec.ts (project kb-voice-qa, the built
// packages) once per profile, which also asserts both outcomes.
//
//   BENCH_FIRST_WORDS_PROFILES=wifi,satellite   only these profiles
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, log, root, runBenchmark } from './lib/common.mjs';

const PROFILES = (process.env.BENCH_FIRST_WORDS_PROFILES ?? 'wifi,4g,congested-wifi,satellite,3g-poor').split(',').map((s) => s.trim()).filter(Boolean);
const TOLERANCE_MS = 100;

function runProfile(profile, out) {
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules/@playwright/test/cli.js'), 'test', 'qa/test/first-words.spec.ts', '--project', 'kb-voice-qa', '--reporter', 'line', '--workers', '1'], {
    cwd: root, encoding: 'utf8', timeout: 240_000,
    env: { ...process.env, KB_FIRST_WORDS_PROFILE: profile, KB_FIRST_WORDS_OUT: out },
  });
  const rows = existsSync(out) ? readFileSync(out, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((x) => x.profile === profile) : [];
  return { rows, passed: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}`.split('\n').filter((l) => /passed|failed|Error/.test(l)).slice(0, 6).join(' | ') };
}

const describe = (m) => (!m ? 'not measured' : 'problem' in m ? 'nothing heard (the whole question was said before the call connected)' : `${m.missedMs} ms missing (said ${m.saidMs} ms of speech, recorded ${m.heardMs} ms)`);

await runBenchmark('first-words', '1d. First words: a question said at the click (Chromium through the network lab)', async () => {
  if (!process.env.BENCH_NO_BUILD) ensureBuilt();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kbv-first-words-'));
  const figures = [];
  const notes = [];
  const on = [];
  const off = [];
  try {
    for (const profile of PROFILES) {
      log(`first words on ${profile}…`);
      const out = path.join(dir, `${profile}.jsonl`);
      const { rows, passed, output } = runProfile(profile, out);
      const withBuffer = rows.find((x) => x.buffer === true);
      const without = rows.find((x) => x.buffer === false);
      on.push({ profile, m: withBuffer });
      off.push({ profile, m: without });
      figures.push({ label: `${profile}: missing of the question's start, with the pre-connect buffer · without`, value: `${describe(withBuffer)} · ${describe(without)}` });
      if (!passed) notes.push(`${profile}: the spec failed: ${output}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const whole = on.filter(({ m }) => m && 'missedMs' in m && m.missedMs <= TOLERANCE_MS);
  const cut = off.filter(({ m }) => m && (('problem' in m) || m.missedMs > TOLERANCE_MS));
  figures.push({ label: `with the buffer, heard from within ${TOLERANCE_MS} ms of the onset`, value: `${whole.length}/${PROFILES.length} profiles (${on.map(({ profile, m }) => `${profile} ${m && 'missedMs' in m ? `${m.missedMs} ms` : '–'}`).join(', ')})`, target: 'every profile', met: whole.length === PROFILES.length });
  figures.push({ label: 'without it, measurably cut', value: `${cut.length}/${PROFILES.length} profiles`, target: 'every profile', met: cut.length === PROFILES.length });
  return { name: 'first-words', title: '1d. First words: a question said at the click (Chromium through the network lab)', ok: true, figures, notes, details: { on, off } };
});
