#!/usr/bin/env node
// `npm run test:package` (part of `npm test`, after the build): checks the packages AS PUBLISHED.
// `npm pack` both packages (kb-voice and the workspace's kb-voice-emulator), then, on the tarballs
// and on consumer projects that have them installed (in a temp dir outside the repo, so nothing
// resolves from the repo's node_modules by accident):
//   1. pack contents   dist/ entry files and docs/*.md present, no src/ or test/ shipped, README links reach packed files
//   2. install         `npm install kb-voice.tgz` into an EMPTY app, for real (registry): prints the
//                      node_modules size, package count, native binaries and install scripts, and
//                      fails above the targets (<= 14 MB du, 2 packages: kb-voice, zod; 0 native, 0 scripts)
//                      or when README.md's sentence about it states other figures than measured
//   2b. manifests      no lifecycle script (prepare, prepack, install...) in any packed package.json
//   3. publint         package.json/exports lint of both tarballs (warnings fail)
//   4. attw            types resolve for every entry of both (profile esm-only: ESM-only packages)
//   4. browser bundle  esbuild, platform=browser, NO define/inject/alias/polyfill, of
//                      `import { VoiceSession, createApiClient } from 'kb-voice'`: builds, pulls
//                      nothing but kb-voice, zod, and min+gzip < 48 KB (48,000 bytes)
//                      the OpenAI dialect is absent from that bundle and adds <= 6 KB when imported
//   4b. widget         `kb-voice/widget` through esbuild (same leak check), and the one-file build
//                      dist/kb-voice-widget.js as shipped: self-contained, min+gzip at most 26 KB
//                      more than the browser entry's; README.md and docs/widget.md state its size, the
//                      browser entry's and the widget's share within 1 kB of the measured figures
//   5. schemas bundle  `kb-voice/schemas` is browser-safe too (size printed)
//   6. vite build      the same consumer through Vite with its defaults
//   7. consumer types  tsc strict with skipLibCheck OFF over a browser consumer (bundler
//                      resolution, no Node types, no React) and a Node consumer (node16) of every entry
//   7b. React JSX      a React 19 + TypeScript app (skipLibCheck off) type-checks <kb-voice-widget ai-id=…
//                      language="ja" onturn=…/> from `import 'kb-voice/widget'` alone, and a wrong prop fails
//   8. node smoke      every entry imports in Node from the app that installed kb-voice alone; the
//                      `kb-voice emulator` bin there says in one line how to install the emulator
//   9. emulator        the packed kb-voice-emulator, installed beside kb-voice, starts on port 0,
//                      serves /_emulator/fixtures; `kb-voice-emulator --help` and `kb-voice emulator`
//  10. kb-voice-qa     its tarball (publint, attw too), and a fresh app installing the three tarballs
//                      offline runs an example Playwright suite (scripts/lib/qa-package-checks.mjs)
// Prints one line per check and a closing "package checks: N passed, N failed"; writes the same
// to test-results/package-checks.json for scripts/test.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { publint } from 'publint';
import { relativeLinks } from './check-doc-links.mjs';
import { docPages } from './lib/doc-pages.mjs';
import { measureInstall } from './lib/install-footprint.mjs';
import { checkQaTarball, runExampleSuite } from './lib/qa-package-checks.mjs';
import { formatMessage } from 'publint/utils';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// "< 48 KB" read strictly: 48,000 bytes (not 49,152). The budget was 45 KB until round 0.3 put
// call quality (getStats sampling, the E-model, perceived latency: ~2.9 KB) and real-world calls
// (devices, online/offline, resume after reload: ~1.5 KB) into every VoiceSession, as the
// contract requires; the redesigned core itself measured 44.2 KB before them. Raise it again only
// for a feature every call needs, and say which.
// Round 0.5 added the pre-connect buffer (issue 48, on by default: ~1.5 KB), the construction-time
// option checks (~0.6 KB) and the session's split (~0.65 KB) and won it back within 48,000 bytes:
// the vendored simple-peer's stand-ins trimmed to what it calls (Buffer, events, randombytes,
// get-browser-rtc, err-code, queue-microtask; no `process`, no ESM interop helpers), text messages
// kept as strings, and v1 messages read by their type's schema instead of the discriminated unions.
// 2026-12-08: about 47,890 bytes, after simple-peer's three unused methods left the copy (-143) and
// the ICE restart's probe learned the silence (about +50).
const BROWSER_LIMIT_BYTES = 48_000;
/** What `openaiProtocol` may add to an app's bundle (the OpenAI Realtime mapping), min+gzip. */
const OPENAI_DIALECT_LIMIT_BYTES = 6_000;
/** Packages the browser entry may pull into a consumer's bundle (everything else is a leak). */
const BROWSER_PACKAGES = ['kb-voice', 'zod'];
/** What kb-voice/react and kb-voice/testing (and the widget's one-file build) may add to an app's bundle beyond the browser entry (min+gzip bytes). */
// The widget's was 12,000 until round 0.5: the one-file build now also carries the sources UI (issue 47:
// a lazy chunk for apps that bundle kb-voice/widget, inline in the one-file build, which must stay one
// file), the sources reader and ratings, and Test my setup (issue 48: kb-voice/check and its en/ja panel,
// likewise lazy for apps and inline in the one-file build).
const EXTRA_LIMIT_BYTES = { 'kb-voice/react': 2_000, 'kb-voice/testing': 4_000, 'kb-voice/widget': 26_000 };

const results = [];
const keep = process.argv.includes('--keep');

async function check(name, fn) {
  const started = Date.now();
  try {
    const detail = await fn();
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    results.push({ name, ok: true, detail: detail ?? '' });
    console.log(`  ok    ${name}${detail ? ` — ${detail}` : ''} (${seconds} s)`);
  } catch (error) {
    results.push({ name, ok: false, detail: error instanceof Error ? error.message : String(error) });
    console.log(`  FAIL  ${name}\n${indent(error instanceof Error ? error.message : String(error))}`);
  }
}

function indent(text) {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `        ${line}`)
    .join('\n');
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 120_000, ...options });
  if (result.error) throw result.error;
  return result;
}

/** Sizes in kB of 1000 bytes, the unit of the budget. */
/** How far a size stated in the docs ("about N kB") may be from the measured one. */
const DOC_SIZE_TOLERANCE_BYTES = 1_000;

/**
 * The sizes README.md and docs/widget.md state, each with the measured figure it names. A page whose
 * sentence changed so the pattern no longer finds it fails the check: edit the pattern with the sentence.
 */
async function statedSizes() {
  const pages = [
    ['README.md', /one-file build \(about ([\d.]+) kB min\+gzip/, ['one-file widget']],
    ['docs/widget.md', /It is about ([\d.]+) kB min\+gzip: the\s+browser entry \(`VoiceSession` \+ `createApiClient`, about ([\d.]+) kB\) plus about ([\d.]+) kB for the widget/,
      ['one-file widget', 'browser entry', 'widget beyond the browser entry']],
  ];
  const stated = [];
  for (const [file, pattern, names] of pages) {
    const match = (await readFile(path.join(root, file), 'utf8')).match(pattern);
    if (!match) throw new Error(`${file}: the sentence stating the widget's size was not found (${pattern})`);
    names.forEach((what, i) => stated.push({ file, what, kB: Number(match[i + 1]) }));
  }
  return stated;
}

function kb(bytes) {
  return `${(bytes / 1000).toFixed(1)} kB`;
}

/**
 * Targets of `npm install kb-voice` into an empty app (issue 25): at most 13 MB on disk (`du`), and
 * only these packages: kb-voice and what its entries import (no web framework for the relay: it
 * serves from node:http alone).
 */
const INSTALL_LIMITS = { diskBytes: 14_000_000, packages: ['kb-voice', 'zod'], nativeBinaries: 0, installScripts: 0 };
/** What kb-voice/check may add to the browser entry's min+gzip size (bytes): it reuses the session for its test call. */
const CHECK_LIMIT_BYTES = 5120;
/** How far README's "about N MB" may be from the measured size on disk (it states whole MB). */
const README_MB_TOLERANCE = 1;
/** npm lifecycle scripts: a published manifest has none (npm runs or warns about them on install; the build is not a consumer's business). */
const LIFECYCLE_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare', 'prepack', 'postpack', 'prepublish', 'prepublishOnly', 'publish', 'postpublish', 'preuninstall', 'uninstall', 'postuninstall', 'dependencies'];

/**
 * The package's entries and what a Node import of each needs besides kb-voice itself
 * (`peers`: optional peer dependencies the check installs from the repo's node_modules first).
 */
const ENTRIES = [
  { name: 'kb-voice', file: 'dist/index.js', keys: ['VoiceSession', 'createApiClient', 'ApiError', 'ValidationError', 'KbVoiceError', 'VoiceSessionError'] },
  { name: 'kb-voice/api', file: 'dist/api/index.js', keys: ['createApiClient', 'ApiError', 'ValidationError'] },
  { name: 'kb-voice/schemas', file: 'dist/schemas/index.js', keys: ['RealtimeSessionIn', 'RealtimeSessionOut'] },
  { name: 'kb-voice/relay', file: 'dist/relay/index.js', keys: ['createRelay', 'serveRelay'] },
  { name: 'kb-voice/widget', file: 'dist/widget/index.js', keys: ['KbVoiceWidget', 'defineKbVoiceWidget'] },
  { name: 'kb-voice/widget/standalone', file: 'dist/kb-voice-widget.js', keys: ['KbVoiceWidget', 'defineKbVoiceWidget'] },
  { name: 'kb-voice/react', file: 'dist/react/index.js', keys: ['useVoiceSession'] },
  { name: 'kb-voice/testing', file: 'dist/testing/index.js', keys: ['ScriptedService', 'FakeAudioElement'] },
  { name: 'kb-voice/noise', file: 'dist/noise/index.js', keys: ['processMicrophone', 'VoiceGate', 'instantiateRnnoise'] },
  { name: 'kb-voice/otel', file: 'dist/otel/index.js', keys: ['voiceTelemetry', 'relayTracing'] },
  { name: 'kb-voice/cli', file: 'dist/cli/index.js', keys: ['parseCommandArgs', 'UsageError', 'USAGE_EXIT_CODE'] },
  { name: 'kb-voice/check', file: 'dist/check/index.js', keys: ['checkCall', 'gradeNetwork'] },
  { name: 'kb-voice/sources', file: 'dist/sources/index.js', keys: ['withSources', 'toSources', 'MAX_FEEDBACK_CHARS'] },
];

async function main() {
  for (const file of ['index.js', 'vendor/simple-peer.js', 'cli/main.js', '../emulator/dist/index.js']) {
    if (!existsSync(path.join(root, 'dist', file))) {
      console.error(`check-package: dist/${file} is missing: run npm run build first`);
      process.exit(1);
    }
  }
  const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
  const work = await mkdtemp(path.join(os.tmpdir(), 'kb-voice-package-'));
  // The app that installs kb-voice alone, as `npm install kb-voice` would.
  const consumer = path.join(work, 'consumer');
  const installed = path.join(consumer, 'node_modules', 'kb-voice');
  console.log(`package checks (${pkg.name}@${pkg.version}, work dir ${work})`);

  let tarball = '';
  let emulatorTarball = '';
  let qaTarball = '';
  let files = [];
  let emulatorFiles = [];
  try {
    await check('npm pack (kb-voice)', async () => {
      const info = pack(root, work);
      tarball = path.join(work, info.filename);
      files = info.files.map((f) => f.path);
      const required = [
        'package.json',
        'README.md',
        ...ENTRIES.map((e) => e.file),
        'dist/index.d.ts',
        'dist/api/index.d.ts',
        'dist/vendor/simple-peer.js',
        'dist/noise/rnnoise-worklet.js',
        'dist/noise/rnnoise_simd.wasm',
        'dist/cli/main.js',
        'bench/RESULTS.md',
        ...docPages(root).filter((f) => path.dirname(f) === path.join(root, 'docs')).map((f) => path.relative(root, f).split(path.sep).join('/')),
      ];
      const missing = required.filter((f) => !files.includes(f));
      // The docs pages and the benchmark results (npm adds bench/README.md with them) ship so that the
      // README's links work from the package; nothing else of docs/ (the demo screenshot) or bench/.
      const shipped = (f) => /^docs\/[^/]+\.md$/.test(f) || f === 'bench/RESULTS.md' || f === 'bench/README.md';
      const stray = files.filter((f) => (/^(src|test|demo|scripts|bench|emulator|docs)\//.test(f) && !shipped(f)) || f.startsWith('dist/emulator/'));
      if (missing.length > 0) throw new Error(`missing from the tarball: ${missing.join(', ')}`);
      if (stray.length > 0) throw new Error(`should not be published: ${stray.slice(0, 10).join(', ')}`);
      const maps = files.filter((f) => f.endsWith('.map')).length;
      return `${files.length} files (${maps} source maps, sources inlined), ${kb(info.size)} packed, ${kb(info.unpackedSize)} unpacked`;
    });
    if (!tarball) throw new Error('no tarball: the remaining checks cannot run');

    await check('npm pack (kb-voice-emulator)', async () => {
      const info = pack(path.join(root, 'emulator'), work);
      emulatorTarball = path.join(work, info.filename);
      const names = info.files.map((f) => f.path);
      emulatorFiles = names;
      const missing = ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/cli.js', 'dist/bin.js', 'bin/kb-voice-emulator.js'].filter((f) => !names.includes(f));
      const stray = names.filter((f) => /^(src|test)\//.test(f));
      if (missing.length > 0) throw new Error(`missing from the tarball: ${missing.join(', ')}`);
      if (stray.length > 0) throw new Error(`should not be published: ${stray.slice(0, 10).join(', ')}`);
      return `${names.length} files, ${kb(info.size)} packed, ${kb(info.unpackedSize)} unpacked`;
    });

    await check('npm pack (kb-voice-qa)', async () => {
      const info = pack(path.join(root, 'qa'), work);
      qaTarball = path.join(work, info.filename);
      const names = info.files.map((f) => f.path);
      checkQaTarball(names, JSON.parse(await readFile(path.join(root, 'qa', 'package.json'), 'utf8')));
      return `${names.length} files, ${kb(info.size)} packed, ${kb(info.unpackedSize)} unpacked; no native binary, no install script`;
    });

    await check('README links work from the package', async () => {
      // Outside the repository (the registry's page, an unpacked tarball) a relative link works only
      // when its file ships in the same package: kb-voice's README may point at its packed docs;
      // kb-voice-emulator's README, whose package holds no docs, uses absolute URLs only.
      const problems = [];
      const packs = [['kb-voice', root, files], ['kb-voice-emulator', path.join(root, 'emulator'), emulatorFiles]];
      for (const [label, dir, packed] of packs) {
        for (const { target } of relativeLinks(await readFile(path.join(dir, 'README.md'), 'utf8'))) {
          const file = target.split('#')[0];
          if (file && !packed.includes(path.posix.normalize(file))) problems.push(`${label}: ${target} (not in the package)`);
        }
      }
      if (problems.length > 0) throw new Error(`README links to files the package does not ship:\n${problems.join('\n')}`);
      return 'every relative link of both READMEs points at a packed file';
    });

    await check('npm install kb-voice into an empty app', async () => {
      await mkdir(consumer, { recursive: true });
      await writeFile(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
      const install = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: consumer, timeout: 180_000 });
      if (install.status !== 0) throw new Error(`npm install failed:\n${install.stdout}\n${install.stderr}`);
      const footprint = await measureInstall(path.join(consumer, 'node_modules'));
      const summary =
        `${kb(footprint.diskBytes)} node_modules on disk (du; limit ${kb(INSTALL_LIMITS.diskBytes)}), ${footprint.packages.length} packages ` +
        `(allowed ${INSTALL_LIMITS.packages.length}: ${footprint.packages.join(', ')}), ${footprint.nativeBinaries.length} native binaries, ` +
        `${footprint.installScripts.length} install scripts`;
      const over = [];
      if (footprint.diskBytes > INSTALL_LIMITS.diskBytes) over.push('size on disk');
      const extra = footprint.packages.filter((p) => !INSTALL_LIMITS.packages.includes(p));
      if (extra.length > 0 || footprint.packages.length > INSTALL_LIMITS.packages.length) over.push(`packages beyond ${INSTALL_LIMITS.packages.join(', ')}: ${extra.join(', ') || '(duplicates)'}`);
      if (footprint.nativeBinaries.length > INSTALL_LIMITS.nativeBinaries) over.push(`native binaries: ${footprint.nativeBinaries.join(', ')}`);
      if (footprint.installScripts.length > INSTALL_LIMITS.installScripts) over.push(`install scripts: ${footprint.installScripts.join(', ')}`);
      if (over.length > 0) throw new Error(`${summary}\nover the target: ${over.join('; ')}`);
      const claims = readmeInstallClaims(await readFile(path.join(root, 'README.md'), 'utf8'));
      const measuredMb = footprint.diskBytes / 1_000_000;
      const wrong = [];
      if (claims.packages !== footprint.packages.length) wrong.push(`${claims.packages} packages (measured ${footprint.packages.length})`);
      if (Math.abs(claims.mb - measuredMb) > README_MB_TOLERANCE) wrong.push(`about ${claims.mb} MB (measured ${measuredMb.toFixed(1)} MB)`);
      if (claims.limitMb * 1_000_000 !== INSTALL_LIMITS.diskBytes || claims.limitPackages !== INSTALL_LIMITS.packages.length) {
        wrong.push(`limits ${claims.limitMb} MB / ${claims.limitPackages} packages (checked: ${INSTALL_LIMITS.diskBytes / 1_000_000} MB / ${INSTALL_LIMITS.packages.length})`);
      }
      if (wrong.length > 0) throw new Error(`${summary}\nREADME.md says ${wrong.join(', ')}: update its install sentence`);
      return `${summary}; README's "${claims.packages} packages and about ${claims.mb} MB" holds`;
    });

    await check('no lifecycle script in the published manifests', async () => {
      const found = [];
      for (const file of [tarball, emulatorTarball, qaTarball]) {
        const listed = run('tar', ['-xOzf', file, 'package/package.json']);
        if (listed.status !== 0) throw new Error(`cannot read package.json from ${path.basename(file)}: ${listed.stderr}`);
        const manifest = JSON.parse(listed.stdout);
        const scripts = Object.keys(manifest.scripts ?? {}).filter((name) => LIFECYCLE_SCRIPTS.includes(name));
        if (scripts.length > 0) found.push(`${manifest.name}: ${scripts.join(', ')}`);
      }
      if (found.length > 0) throw new Error(`lifecycle scripts in the packed manifests: ${found.join('; ')}`);
      return `none in kb-voice, kb-voice-emulator, kb-voice-qa (of ${LIFECYCLE_SCRIPTS.length} npm lifecycle names)`;
    });
    if (!existsSync(installed)) throw new Error('kb-voice is not installed in the consumer app: the remaining checks cannot run');

    for (const [label, file] of [['kb-voice', tarball], ['kb-voice-emulator', emulatorTarball], ['kb-voice-qa', qaTarball]]) {
      await check(`publint (${label})`, async () => {
        const bytes = await readFile(file);
        const { messages, pkg: linted } = await publint({
          pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
          level: 'suggestion',
          strict: true,
        });
        const problems = messages.filter((m) => m.type !== 'suggestion');
        const suggestions = messages.filter((m) => m.type === 'suggestion');
        for (const m of suggestions) console.log(`        suggestion: ${formatMessage(m, linted, { color: false })}`);
        if (problems.length > 0) {
          throw new Error(problems.map((m) => `${m.type}: ${formatMessage(m, linted, { color: false })}`).join('\n'));
        }
        return `no errors or warnings${suggestions.length ? `, ${suggestions.length} suggestion(s)` : ''}`;
      });

      await check(`attw (${label}, profile esm-only)`, async () => {
        const attw = path.join(root, 'node_modules', '.bin', 'attw');
        const result = run(attw, [file, '--profile', 'esm-only', '--format', 'table-flipped', '--no-emoji', '--no-color'], {
          cwd: work,
        });
        if (result.status !== 0) throw new Error(`${result.stdout}\n${result.stderr}`.trim());
        const entries = [...result.stdout.matchAll(/"(kb-voice[^"]*)"/g)].map((m) => m[1]);
        return `types resolve for ${[...new Set(entries)].join(', ') || 'every entry'}`;
      });
    }

    const entry = path.join(consumer, 'app.js');
    await writeFile(
      entry,
      "import { VoiceSession, createApiClient } from 'kb-voice';\n" +
        '// Keep both reachable so the size is that of a real app using them.\n' +
        'globalThis.kbVoice = { VoiceSession, createApiClient };\n',
    );

    let browserGzipped = 0;
    let widgetGzipped = 0;
    await check('browser bundle of kb-voice (esbuild, no shims)', async () => {
      const { bytes, gzipped } = await bundleForBrowser(consumer, entry);
      browserGzipped = gzipped;
      if (gzipped > BROWSER_LIMIT_BYTES) {
        throw new Error(`min+gzip ${kb(gzipped)} is over the ${kb(BROWSER_LIMIT_BYTES)} budget`);
      }
      return `VoiceSession + createApiClient: ${kb(bytes)} min, ${kb(gzipped)} (${gzipped} bytes) min+gzip, budget ${kb(BROWSER_LIMIT_BYTES)}`;
    });

    await check('widget: kb-voice/widget bundle and the one-file build (size beyond the browser entry)', async () => {
      const widgetEntry = path.join(consumer, 'widget-app.js');
      await writeFile(widgetEntry, "import 'kb-voice/widget';\n");
      const bundled = await bundleForBrowser(consumer, widgetEntry);
      const file = path.join(installed, 'dist', 'kb-voice-widget.js');
      const alone = await esbuild.build({ entryPoints: [file], bundle: true, write: false, metafile: true, format: 'esm', external: ['*'], logLevel: 'silent' });
      const imports = Object.values(alone.metafile.inputs).flatMap((input) => input.imports.map((i) => i.path));
      if (imports.length > 0) throw new Error(`dist/kb-voice-widget.js is not self-contained: it imports ${imports.join(', ')}`);
      const code = await readFile(file);
      const gzipped = gzipSync(code, { level: 9 }).length;
      if (!browserGzipped) throw new Error('the browser entry was not measured (its check failed)');
      const extra = gzipped - browserGzipped;
      const summary = `one-file build ${kb(code.length)} min, ${kb(gzipped)} min+gzip = browser entry + ${kb(extra)} (limit + ${kb(EXTRA_LIMIT_BYTES['kb-voice/widget'])}); ` +
        `through esbuild ${kb(bundled.gzipped)} min+gzip`;
      if (extra > EXTRA_LIMIT_BYTES['kb-voice/widget']) throw new Error(`${summary}: over the limit`);
      widgetGzipped = gzipped;
      return summary;
    });

    await check(`docs state the measured sizes (README.md, docs/widget.md; within ${kb(DOC_SIZE_TOLERANCE_BYTES)})`, async () => {
      if (!browserGzipped || !widgetGzipped) throw new Error('the browser entry or the one-file build was not measured (its check failed)');
      const measured = { 'one-file widget': widgetGzipped, 'browser entry': browserGzipped, 'widget beyond the browser entry': widgetGzipped - browserGzipped };
      const stated = await statedSizes();
      const wrong = stated.filter(({ what, kB }) => Math.abs(kB * 1000 - measured[what]) > DOC_SIZE_TOLERANCE_BYTES);
      const list = stated.map(({ file, what, kB }) => `${file}: ${what} about ${kB} kB, measured ${kb(measured[what])}`);
      if (wrong.length > 0) throw new Error(`sizes in the docs are off: ${wrong.map(({ file, what, kB }) => `${file} says the ${what} is about ${kB} kB, it measures ${kb(measured[what])}`).join('; ')}`);
      return list.join('; ');
    });
    // The React binding and the testing service, each measured as what they add to an app that
    // already has the browser entry (react itself is the app's: external).
    for (const [name, line] of [
      ['kb-voice/react', "import { useVoiceSession } from 'kb-voice/react';\nglobalThis.extra = useVoiceSession;\n"],
      ['kb-voice/testing', "import { ScriptedService } from 'kb-voice/testing';\nglobalThis.extra = ScriptedService;\n"],
    ]) {
      await check(`browser bundle of ${name} (esbuild, beyond kb-voice)`, async () => {
        const base = await bundleForBrowser(consumer, entry);
        const app = path.join(consumer, `${name.replace('/', '-')}-app.js`);
        await writeFile(app, `${await readFile(entry, 'utf8')}${line}`);
        const { gzipped } = await bundleForBrowser(consumer, app, ['react']);
        const extra = gzipped - base.gzipped;
        if (extra > EXTRA_LIMIT_BYTES[name]) throw new Error(`adds ${extra} bytes min+gzip, over its ${EXTRA_LIMIT_BYTES[name]}-byte budget`);
        return `adds ${extra} bytes min+gzip to the browser entry (budget ${EXTRA_LIMIT_BYTES[name]})`;
      });
    }

    await check('OpenAI dialect: absent unless imported, mapping <= 6 KB min+gzip (esbuild)', async () => {
      const plain = await bundleForBrowser(consumer, entry, [], { text: true });
      const markers = ['oai-events', 'kbv_ping_', 'client_secrets'].filter((m) => plain.text.includes(m));
      if (markers.length > 0) throw new Error(`an app that never selects the OpenAI dialect ships it (found ${markers.join(', ')})`);
      const oaiEntry = path.join(consumer, 'openai-app.js');
      await writeFile(oaiEntry, "import { VoiceSession, createApiClient, openaiProtocol } from 'kb-voice';\nglobalThis.kbVoice = { VoiceSession, createApiClient, openaiProtocol };\n");
      const withOai = await bundleForBrowser(consumer, oaiEntry);
      const added = withOai.gzipped - plain.gzipped;
      if (added > OPENAI_DIALECT_LIMIT_BYTES) throw new Error(`the OpenAI dialect adds ${kb(added)} min+gzip, over its ${kb(OPENAI_DIALECT_LIMIT_BYTES)} budget`);
      return `default app free of it; openaiProtocol adds ${kb(added)} (${added} bytes) min+gzip, budget ${kb(OPENAI_DIALECT_LIMIT_BYTES)}`;
    });

    // Issue 35: rnnoise is its own entry, loaded by the app (`noiseModule: () => import('kb-voice/noise')`):
    // the core bundle must hold none of it (the worklet's name, rnnoise's exports, its asset names).
    await check('kb-voice/noise: absent from the browser entry unless the app imports it (esbuild)', async () => {
      const plain = await bundleForBrowser(consumer, entry, [], { text: true });
      const markers = ['kb-voice-rnnoise', 'rnnoise_process_frame', 'rnnoise_simd.wasm'].filter((m) => plain.text.includes(m));
      if (markers.length > 0) throw new Error(`an app that never enables rnnoise ships it (found ${markers.join(', ')})`);
      const noiseEntry = path.join(consumer, 'noise-app.js');
      await writeFile(noiseEntry, "import * as noise from 'kb-voice/noise';\nglobalThis.noise = noise;\n");
      const { gzipped } = await bundleForBrowser(consumer, noiseEntry, [], { text: true });
      return `default app free of it; kb-voice/noise alone ${kb(gzipped)} min+gzip (its worklet and WebAssembly are fetched by URL)`;
    });

    // Issue 48: the pre-call check is its own entry (`await import('kb-voice/check')`): the core holds
    // none of it, and what it adds on top of the core is bounded.
    await check(`kb-voice/check: absent from the browser entry; adds <= ${kb(CHECK_LIMIT_BYTES)} min+gzip to it (esbuild)`, async () => {
      const plain = await bundleForBrowser(consumer, entry, [], { text: true });
      const markers = ['kb-voice-check', 'needs_turn_tcp'].filter((m) => plain.text.includes(m));
      if (markers.length > 0) throw new Error(`an app that never checks a call ships the check (found ${markers.join(', ')})`);
      const checkEntry = path.join(consumer, 'check-app.js');
      await writeFile(checkEntry, "import { VoiceSession, createApiClient } from 'kb-voice';\nimport { checkCall } from 'kb-voice/check';\nglobalThis.kbVoice = { VoiceSession, createApiClient, checkCall };\n");
      const withCheck = await bundleForBrowser(consumer, checkEntry);
      const added = withCheck.gzipped - plain.gzipped;
      if (added > CHECK_LIMIT_BYTES) throw new Error(`kb-voice/check adds ${kb(added)} min+gzip, over its ${kb(CHECK_LIMIT_BYTES)} budget`);
      return `default app free of it; checkCall adds ${kb(added)} (${added} bytes) min+gzip to the core, budget ${kb(CHECK_LIMIT_BYTES)}`;
    });

    await check('browser bundle of kb-voice/schemas (esbuild, no shims)', async () => {
      const schemasEntry = path.join(consumer, 'schemas-app.js');
      await writeFile(schemasEntry, "import * as schemas from 'kb-voice/schemas';\nglobalThis.schemas = schemas;\n");
      const { bytes, gzipped } = await bundleForBrowser(consumer, schemasEntry);
      return `all schemas: ${kb(bytes)} min, ${kb(gzipped)} min+gzip`;
    });

    await check('browser bundle of kb-voice (vite build, defaults)', async () => {
      const { build } = await import('vite');
      const output = await build({
        configFile: false,
        root: consumer,
        logLevel: 'error',
        build: {
          write: false,
          rollupOptions: { input: entry },
        },
      });
      const chunks = (Array.isArray(output) ? output : [output]).flatMap((o) => o.output ?? []);
      const code = chunks.filter((c) => c.type === 'chunk').map((c) => c.code).join('\n');
      if (!code.includes('kb-voice')) {
        // The error classes' names and the data channel label are in the bundle when it worked.
        throw new Error('the Vite bundle does not contain kb-voice');
      }
      return `${kb(Buffer.byteLength(code))} min, ${kb(gzipSync(code, { level: 9 }).length)} min+gzip`;
    });

    await check('consumer types (tsc strict, skipLibCheck off)', async () => {
      await typecheckConsumers(consumer);
      return 'browser consumer of ., ./schemas and ./widget (bundler, no @types/node); Node consumer of ./api, ./schemas, ./relay (node16, no DOM lib)';
    });

    await check('React 19 + TypeScript: <kb-voice-widget> in TSX (skipLibCheck off)', async () => {
      return typecheckReactConsumer(consumer);
    });

    await check('node smoke (every entry imports; kb-voice emulator without the emulator)', async () => {
      // kb-voice/react and kb-voice/otel need their optional peers, as in an app that uses them.
      await linkPackage(consumer, 'react');
      await linkPackage(consumer, '@opentelemetry/api');
      const script = `
        const need = ${JSON.stringify(ENTRIES.map((e) => [e.name, e.keys]))};
        for (const [name, keys] of need) {
          const mod = await import(name);
          for (const key of keys) if (!(key in mod)) throw new Error(name + ' lacks ' + key);
        }
        console.log('ok');`;
      const smoke = run(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer, timeout: 60_000 });
      if (smoke.status !== 0 || smoke.stdout.trim() !== 'ok') throw new Error(`${smoke.stdout}\n${smoke.stderr}`.trim());
      const bin = run(process.execPath, [path.join(installed, 'dist', 'cli', 'main.js'), '--help'], { cwd: consumer });
      if (bin.status !== 0 || !bin.stdout.includes('Usage: kb-voice')) throw new Error(`bin --help: ${bin.stderr}`);
      const missing = run(process.execPath, [path.join(installed, 'dist', 'cli', 'main.js'), 'emulator'], { cwd: consumer });
      const lines = missing.stderr.trim().split('\n');
      if (missing.status === 0 || lines.length !== 1 || !lines[0].includes('npm install -D kb-voice-emulator')) {
        throw new Error(`kb-voice emulator without the package should say in one line how to install it; got (${missing.status}):\n${missing.stderr}`);
      }
      return `${ENTRIES.map((e) => e.name).join(', ')} load; kb-voice --help; kb-voice emulator → "${lines[0]}"`;
    });

    await check('kb-voice-emulator installed beside kb-voice (starts, bins)', async () => {
      const qa = path.join(work, 'qa-app');
      await mkdir(qa, { recursive: true });
      await writeFile(path.join(qa, 'package.json'), JSON.stringify({ name: 'qa-app', version: '1.0.0', private: true, type: 'module' }));
      const install = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, emulatorTarball], { cwd: qa, timeout: 300_000 });
      if (install.status !== 0) throw new Error(`npm install failed:\n${install.stdout}\n${install.stderr}`);
      const script = `
        import { startEmulator, FakeMicrophone } from 'kb-voice-emulator';
        if (typeof FakeMicrophone !== 'function') throw new Error('no FakeMicrophone');
        const emu = await startEmulator({ port: 0, host: '127.0.0.1' });
        try {
          const res = await fetch(emu.url + '/_emulator/fixtures');
          if (res.status !== 200) throw new Error('fixtures: HTTP ' + res.status);
          const body = await res.json();
          if (body.apiKey !== emu.apiKey) throw new Error('fixtures do not name the emulator key');
        } finally { await emu.close(); }
        console.log('ok');`;
      const smoke = run(process.execPath, ['--input-type=module', '-e', script], { cwd: qa, timeout: 60_000 });
      if (smoke.status !== 0 || smoke.stdout.trim() !== 'ok') throw new Error(`${smoke.stdout}\n${smoke.stderr}`.trim());
      const help = run(path.join(qa, 'node_modules', '.bin', 'kb-voice-emulator'), ['--help'], { cwd: qa });
      if (help.status !== 0 || !help.stdout.includes('Usage: kb-voice-emulator')) throw new Error(`kb-voice-emulator --help: ${help.stderr}`);
      const viaMain = run(path.join(qa, 'node_modules', '.bin', 'kb-voice'), ['emulator', '--help'], { cwd: qa });
      if (viaMain.status !== 0 || !viaMain.stdout.includes('Usage: kb-voice-emulator')) throw new Error(`kb-voice emulator --help: ${viaMain.stderr}`);
      const footprint = await measureInstall(path.join(qa, 'node_modules'));
      return `served /_emulator/fixtures; both bins; QA install ${kb(footprint.bytes)}, ${footprint.packages.length} packages, ${footprint.nativeBinaries.length} native binaries`;
    });

    await check('kb-voice-qa: a fresh app with the three packed packages runs an example suite', async () => {
      const playwrightVersion = JSON.parse(await readFile(path.join(root, 'node_modules', '@playwright', 'test', 'package.json'), 'utf8')).version;
      return runExampleSuite({ app: path.join(work, 'voice-qa-app'), tarballs: [tarball, emulatorTarball, qaTarball], playwrightVersion, run });
    });
  } catch (error) {
    results.push({ name: 'setup', ok: false, detail: String(error) });
    console.log(`  FAIL  ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    if (keep) console.log(`  (kept ${work})`);
    else await rm(work, { recursive: true, force: true });
  }

  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  await mkdir(path.join(root, 'test-results'), { recursive: true });
  await writeFile(path.join(root, 'test-results', 'package-checks.json'), `${JSON.stringify({ passed, failed, results }, null, 2)}\n`);
  console.log(`package checks: ${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

/** `npm pack --json` of the package in `dir` into `dest`; returns npm's description of it. */
function pack(dir, dest) {
  // --ignore-scripts: prepack would rebuild; dist/ is fresh (npm test builds first).
  const packed = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dest], { cwd: dir });
  if (packed.status !== 0) throw new Error(packed.stderr || 'npm pack failed');
  return JSON.parse(packed.stdout)[0];
}

async function linkPackage(consumer, name) {
  const target = path.join(root, 'node_modules', name);
  if (!existsSync(target)) throw new Error(`dependency ${name} is not installed in the repo`);
  const link = path.join(consumer, 'node_modules', name);
  if (existsSync(link)) return;
  await mkdir(path.dirname(link), { recursive: true });
  await symlink(target, link, 'dir');
}

/** esbuild with a consumer's defaults for the browser: no define, inject or alias; `external`: the app's own peer packages. */
async function bundleForBrowser(consumer, entry, external = [], { text: withText = false } = {}) {
  const result = await esbuild.build({
    external,
    absWorkingDir: consumer,
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const allowed = await Promise.all(
    BROWSER_PACKAGES.map(async (name) => `${await realpath(path.join(consumer, 'node_modules', name))}${path.sep}`),
  );
  const leaks = [];
  for (const [input, info] of Object.entries(result.metafile.inputs)) {
    const absolute = await realpath(path.resolve(consumer, input)).catch(() => path.resolve(consumer, input));
    if (absolute !== entry && !allowed.some((dir) => absolute.startsWith(dir))) leaks.push(input);
    for (const imported of info.imports) {
      if ((imported.external && !external.includes(imported.path)) || imported.path.startsWith('node:')) leaks.push(`${input} imports ${imported.path}`);
    }
  }
  if (leaks.length > 0) {
    throw new Error(`the browser bundle pulls in more than ${BROWSER_PACKAGES.join(', ')}:\n${leaks.slice(0, 20).join('\n')}`);
  }
  const code = result.outputFiles[0].contents;
  const text = new TextDecoder().decode(code);
  // Free Node globals would throw at run time in a browser ("global is not defined").
  if (/\brequire\(["']/.test(text)) throw new Error('the browser bundle calls require()');
  return { bytes: code.length, gzipped: gzipSync(code, { level: 9 }).length, ...(withText ? { text } : {}) };
}

/** README.md's install sentence: "adds N packages and about X MB ... past L MB or P packages". */
function readmeInstallClaims(readme) {
  const text = readme.replace(/\s+/g, ' ');
  const size = /`npm install kb-voice` into an empty app adds (\d+) packages and about (\d+(?:\.\d+)?) MB/.exec(text);
  const limits = /grows past (\d+(?:\.\d+)?) MB or (\d+) packages/.exec(text);
  if (!size || !limits) throw new Error('README.md has no sentence "`npm install kb-voice` into an empty app adds N packages and about X MB ... grows past L MB or P packages"');
  return { packages: Number(size[1]), mb: Number(size[2]), limitMb: Number(limits[1]), limitPackages: Number(limits[2]) };
}

/**
 * A React 19 app in TSX, strict, skipLibCheck off: `import 'kb-voice/widget'` alone types the
 * element (attributes, React 19 property and event props, the ref). A second file with a wrong
 * prop must fail, so the first passing means the typings are there (not `any`).
 */
async function typecheckReactConsumer(consumer) {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const dir = path.join(consumer, 'types-react');
  await mkdir(dir, { recursive: true });
  for (const name of ['react', '@types/react']) await linkPackage(consumer, name);
  const reactTypes = JSON.parse(await readFile(path.join(consumer, 'node_modules', '@types', 'react', 'package.json'), 'utf8')).version;
  if (!reactTypes.startsWith('19.')) throw new Error(`@types/react ${reactTypes} is not React 19's`);
  await writeFile(
    path.join(dir, 'app.tsx'),
    `import 'kb-voice/widget';
import type { KbVoiceWidget } from 'kb-voice/widget';
import { useRef } from 'react';
export function Assistant({ aiId }: { aiId: string }) {
  const widget = useRef<KbVoiceWidget>(null);
  return (
    <kb-voice-widget
      ref={widget}
      ai-id={aiId}
      relay-url="/api/voice"
      language="ja"
      className="assistant"
      messages={{ 'button.start': '話しかける' }}
      onturn={(event) => console.log(event.detail.answer, widget.current?.snapshot?.status)}
      onerror={(event) => console.warn(event.detail.code)}
    />
  );
}
`,
  );
  await writeFile(path.join(dir, 'wrong.tsx'), `import 'kb-voice/widget';
export const wrong = <kb-voice-widget language={5} messages={{ 'button.nope': 'x' }} />;
`);
  const compilerOptions = {
    strict: true, skipLibCheck: false, noEmit: true, target: 'ES2022', jsx: 'react-jsx',
    module: 'ESNext', moduleResolution: 'Bundler', lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [],
  };
  await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['app.tsx'] }));
  await writeFile(path.join(dir, 'tsconfig.wrong.json'), JSON.stringify({ compilerOptions, files: ['wrong.tsx'] }));
  const good = run(process.execPath, [tsc, '-p', dir], { cwd: dir });
  if (good.status !== 0) throw new Error(`React consumer:\n${good.stdout}${good.stderr}`);
  const bad = run(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.wrong.json')], { cwd: dir });
  const errors = (bad.stdout.match(/error TS\d+/g) ?? []).length;
  if (bad.status === 0 || errors < 2) throw new Error(`a wrong prop type and an unknown message key type-checked (the element is untyped):\n${bad.stdout}`);
  return `@types/react ${reactTypes}: <kb-voice-widget ai-id language="ja" messages onturn ref> type-checks; language={5} and an unknown message key fail (${errors} errors)`;
}

async function typecheckConsumers(consumer) {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const browserDir = path.join(consumer, 'types-browser');
  const nodeDir = path.join(consumer, 'types-node');
  await mkdir(browserDir, { recursive: true });
  await mkdir(nodeDir, { recursive: true });
  const strict = { strict: true, skipLibCheck: false, noEmit: true, target: 'ES2022' };

  await writeFile(
    path.join(browserDir, 'app.ts'),
    `import { VoiceSession, createApiClient, ApiError, ValidationError, type SessionState, type Turn } from 'kb-voice';
import { RealtimeSessionIn } from 'kb-voice/schemas';
const api = createApiClient({ baseUrl: '/api/voice' });
const session = new VoiceSession({ aiId: 'robot', api });
session.on('state', (state: SessionState) => console.log(state.status));
session.on('turn', (turn: Turn) => console.log(turn.answer));
export const parsed = RealtimeSessionIn;
export const errors = [ApiError, ValidationError];
import { KbVoiceWidget } from 'kb-voice/widget';
const widget: KbVoiceWidget = document.createElement('kb-voice-widget');
widget.addEventListener('turn', (event) => console.log(event.detail.answer, widget.snapshot?.status));
`,
  );
  await writeFile(
    path.join(browserDir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { ...strict, module: 'ESNext', moduleResolution: 'Bundler', lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [] },
      files: ['app.ts'],
    }),
  );
  const browser = run(process.execPath, [tsc, '-p', browserDir], { cwd: browserDir });
  if (browser.status !== 0) throw new Error(`browser consumer:\n${browser.stdout}${browser.stderr}`);

  // A Node app has its own @types/node; relay types may use node:http. It need not have the DOM
  // library: the server entries (api, schemas, relay) must not use browser types. (The root entry
  // needs DOM types, as a browser entry; the browser consumer above covers it.)
  await linkPackage(consumer, '@types/node');
  await writeFile(
    path.join(nodeDir, 'server.ts'),
    `import { RealtimeSessionOut } from 'kb-voice/schemas';
import { createRelay, serveRelay } from 'kb-voice/relay';
import { createApiClient, ApiError } from 'kb-voice/api';
const relay = createRelay({ upstream: 'http://127.0.0.1:8787', apiKey: 'key' });
export const handle: (request: Request) => Promise<Response> = (request) => relay.fetch(request);
export const serve = serveRelay;
const api = createApiClient({ baseUrl: 'http://127.0.0.1:8787', apiKey: 'key' });
export const usage = () => api.realtime.usage('robot').catch((e: unknown) => (e instanceof ApiError ? e.status : 0));
export const out = RealtimeSessionOut;
`,
  );
  await writeFile(path.join(nodeDir, 'package.json'), JSON.stringify({ type: 'module' }));
  await writeFile(
    path.join(nodeDir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { ...strict, module: 'Node16', moduleResolution: 'Node16', lib: ['ES2022'], types: ['node'] },
      files: ['server.ts'],
    }),
  );
  const node = run(process.execPath, [tsc, '-p', nodeDir], { cwd: nodeDir });
  if (node.status !== 0) throw new Error(`Node consumer:\n${node.stdout}${node.stderr}`);
}

await main();
