// The package checks of kb-voice-qa (called by scripts/check-package.mjs, on the packed tarballs):
//   - its tarball: the dist entries and the harness bundle, no sources, no native binary, no install script;
//   - a fresh app that installs the three packed packages (kb-voice, kb-voice-emulator, kb-voice-qa)
//     and @playwright/test (--prefer-offline: from the local npm cache first) runs an example suite: a spoken and a
//     typed question on a per-worker emulator, with the reporter writing summary.json and index.html.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findChromium } from '../chromium.mjs';

/** Files the kb-voice-qa tarball must hold. */
export const QA_REQUIRED_FILES = [
  'package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/reporter/index.js', 'dist/reporter/index.d.ts',
  'dist/harness.bundle.js', 'dist/page/in-page.js',
];

/** Throws unless the packed file list and package.json are what kb-voice-qa must publish. */
export function checkQaTarball(names, manifest) {
  const missing = QA_REQUIRED_FILES.filter((f) => !names.includes(f));
  const stray = names.filter((f) => /^(src|test)\//.test(f));
  const native = names.filter((f) => f.endsWith('.node') || f.endsWith('binding.gyp'));
  const scripts = ['preinstall', 'install', 'postinstall'].filter((s) => manifest.scripts?.[s]);
  const problems = [];
  if (missing.length) problems.push(`missing from the tarball: ${missing.join(', ')}`);
  if (stray.length) problems.push(`should not be published: ${stray.slice(0, 10).join(', ')}`);
  if (native.length) problems.push(`native binaries: ${native.join(', ')}`);
  if (scripts.length) problems.push(`install scripts: ${scripts.join(', ')}`);
  if (!manifest.peerDependencies?.['@playwright/test']) problems.push('@playwright/test is not a peer dependency');
  if (!manifest.peerDependenciesMeta?.['kb-voice-emulator']?.optional) problems.push('kb-voice-emulator is not an optional peer');
  if (problems.length) throw new Error(problems.join('\n'));
}

const EXAMPLE_CONFIG = `import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'tests',
  workers: 1,
  timeout: 90_000,
  reporter: [['list'], ['kb-voice-qa/reporter', { outputFolder: 'voice-report' }]],
  use: {
    launchOptions: {
      ...(process.env.CHROMIUM_PATH ? { executablePath: process.env.CHROMIUM_PATH } : {}),
      args: ['--no-sandbox'],
    },
  },
});
`;

const EXAMPLE_SUITE = `import { expect, test } from 'kb-voice-qa';

test.use({ voice: { emulator: { agentBuildMs: 300 }, language: 'en' } });

test('warranty, spoken then typed', async ({ voiceCall }) => {
  const call = await voiceCall.start();
  await call.say('How long is the warranty?');
  await expect(call).toAnswer(/two-year/i, { within: 20_000 });
  await call.type('How much do replacement filters cost?');
  await expect(call).toAnswer('980 yen', { within: 20_000 });
  const report = await call.end();
  expect(report.turns).toHaveLength(2);
});
`;

/**
 * Installs the three tarballs and @playwright/test (the repository's version) into `app` with
 * `npm install --prefer-offline`, writes the example suite and runs it; resolves with a one-line summary.
 */
export async function runExampleSuite({ app, tarballs, playwrightVersion, run }) {
  await mkdir(path.join(app, 'tests'), { recursive: true });
  await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'voice-qa-app', version: '1.0.0', private: true, type: 'module' }));
  const install = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs, `@playwright/test@${playwrightVersion}`], { cwd: app, timeout: 300_000 });
  if (install.status !== 0) throw new Error(`npm install --prefer-offline failed:\n${install.stdout}\n${install.stderr}`);
  await writeFile(path.join(app, 'playwright.config.ts'), EXAMPLE_CONFIG);
  await writeFile(path.join(app, 'tests', 'voice.spec.ts'), EXAMPLE_SUITE);
  const chromium = findChromium();
  const env = { ...process.env, CI: '', ...(chromium?.executablePath ? { CHROMIUM_PATH: chromium.executablePath } : {}) };
  const cli = path.join(app, 'node_modules', '@playwright', 'test', 'cli.js');
  const result = spawnSync(process.execPath, [cli, 'test'], { cwd: app, env, encoding: 'utf8', timeout: 240_000 });
  if (result.status !== 0) throw new Error(`the example suite failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  const summaryFile = path.join(app, 'voice-report', 'summary.json');
  if (!existsSync(summaryFile) || !existsSync(path.join(app, 'voice-report', 'index.html'))) throw new Error('the reporter wrote no summary.json/index.html');
  const summary = JSON.parse(await readFile(summaryFile, 'utf8'));
  if (summary.overall?.calls !== 1 || summary.overall?.turns !== 2) throw new Error(`summary.json: expected 1 call with 2 turns, got ${JSON.stringify(summary.overall)}`);
  return `example suite passed in a fresh app (install of the 3 tarballs, from the npm cache first, + @playwright/test@${playwrightVersion}); ` +
    `voice-report: 1 call, 2 turns, first response p50 ${summary.overall.firstResponseMs.p50} ms`;
}
