import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'kb-voice-qa';
import { chromiumLaunchOptions } from '../../scripts/chromium.mjs';

// docs/qa.md's "A complete example suite" as written: its blocks (the WAV step, tests/voice.spec.ts,
// playwright.config.ts) copied into an app folder whose node_modules is this repository's (so
// `kb-voice-qa` resolves to the built package as in a user's app) and run with `playwright test`
// there, the Chromium of this machine through the config's CHROMIUM_PATH. The suite starts its own
// emulators: nothing of this worker is shared.
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
let app = '';
const cli = path.join(root, 'node_modules', '@playwright', 'test', 'cli.js');

/** The first fenced block after the line `marker` (within the section starting at `section`). */
function blockAfter(markdown: string, section: string, marker: string): string {
  const from = markdown.indexOf(section);
  const at = markdown.indexOf(marker, from);
  expect(from >= 0 && at >= 0, `docs/qa.md has "${marker}" under "${section}"`).toBe(true);
  const open = markdown.indexOf('```', at);
  const start = markdown.indexOf('\n', open) + 1;
  return markdown.slice(start, markdown.indexOf('\n```', start) + 1);
}

function run(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: app, env: { ...process.env, ...env, CI: '' } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

test('the complete example suite of docs/qa.md passes as written', async () => {
  test.setTimeout(300_000);
  const doc = await readFile(path.join(root, 'docs', 'qa.md'), 'utf8');
  const section = '## A complete example suite';
  app = await mkdtemp(path.join(tmpdir(), 'kb-voice-qa-docs-suite-'));
  await symlink(path.join(root, 'node_modules'), path.join(app, 'node_modules'), 'dir');
  await mkdir(path.join(app, 'tests'), { recursive: true });
  // An app's package.json, as qa.md asks (kb-voice-qa is an ES module package).
  await writeFile(path.join(app, 'package.json'), '{ "private": true, "type": "module" }\n');
  await writeFile(path.join(app, 'make-audio.mjs'), blockAfter(doc, section, 'made once with'));
  await writeFile(path.join(app, 'tests', 'voice.spec.ts'), blockAfter(doc, section, '`tests/voice.spec.ts`:'));
  await writeFile(path.join(app, 'playwright.config.ts'), blockAfter(doc, section, '`playwright.config.ts`:'));

  const audio = await run(['make-audio.mjs'], {});
  expect(audio.code, audio.output).toBe(0);
  const suite = await run([cli, 'test', '--config', 'playwright.config.ts'], { CHROMIUM_PATH: chromiumLaunchOptions().executablePath as string | undefined });
  expect(suite.code, suite.output).toBe(0);
  expect(suite.output).toMatch(/5 passed/);
  const summary = JSON.parse(await readFile(path.join(app, 'voice-report', 'summary.json'), 'utf8'));
  expect(summary.calls).toHaveLength(5);
  await rm(app, { recursive: true, force: true });
});
