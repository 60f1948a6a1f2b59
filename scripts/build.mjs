#!/usr/bin/env node
// `npm run build`: src/ -> dist/.
//
// 1. `tsc -p tsconfig.build.json` emits JS + .d.ts + source maps for all of src, one file per
//    module, so the browser entry stays tree-shakeable (a consumer importing only
//    createApiClient never loads the WebRTC code; package.json says "sideEffects": false).
// 2. esbuild turns simple-peer 9 and its CommonJS dependencies (readable-stream's Duplex,
//    err-code, get-browser-rtc, queue-microtask, inherits, util-deprecate) into ONE self-contained
//    ES module, dist/vendor/simple-peer.js, with what they expect from Node provided inside the
//    bundle: `global` -> `globalThis` and small stand-ins for `events`, `buffer`, `randombytes`, `debug`, `get-browser-rtc`, `err-code`
//    and `queue-microtask` (scripts/shims/); instead of
//    readable-stream, a small Duplex with what simple-peer uses (scripts/shims/duplex.cjs, through
//    trimReadableStream below).
//    Consumers' bundlers (Vite, SvelteKit, webpack 5, Next.js, esbuild) then need no polyfill or
//    define: simple-peer imported as-is fails there with "global is not defined" or unresolved
//    `events`/`buffer`. Shims instead of the browserify packages: they cost ~10 KB min+gzip less
//    (vendored bundle ~27.5 -> ~16 KB), which keeps the browser entry under its 48 KB budget.
// 3. Every `'simple-peer'` import in the emitted JS reachable from the browser entry is pointed at
//    that vendored module. Server code in dist/ and everything run from src (tests, tsx, vitest)
//    keep the real package from node_modules.
// 4. The widget's one-file build, dist/kb-voice-widget.js (`kb-voice/widget/standalone`): esbuild
//    bundles dist/widget/index.js with everything it imports (zod, eventemitter3, the vendored
//    simple-peer), minified, for one `<script type="module">` tag on any static host. Checked for
//    Node built-ins and for imports left over (it must stand alone); its size is a package check.
// 4b. src/widget/jsx.d.ts (the element's JSX typings, hand-written: tsc does not copy .d.ts files)
//    is copied to dist/widget/jsx.d.ts, which dist/widget/index.d.ts references.
// 4b. The lazy entry kb-voice/noise (issue 35): esbuild bundles its AudioWorklet processor
//    (src/noise/worklet.ts, with the voice gate and the frame processor) into ONE file,
//    dist/noise/rnnoise-worklet.js (a worklet loads one module by URL), and rnnoise's WebAssembly
//    SIMD build is copied from the devDependency @sapphi-red/web-noise-suppressor (MIT; its licence
//    beside them) to dist/noise/, so kb-voice gains no runtime dependency and an app that never
//    enables rnnoise fetches none of it.
// 4c. Source maps (tsc's, sources inlined: dist/ ships without src/) are kept for everything a
//    browser app bundles (its bundler and devtools show the TypeScript), and dropped for the
//    server-only code, dist/relay and dist/cli (Node runs the readable tsc output as-is; their maps
//    were ~380 KB of the 13 MB install budget): SERVER_ONLY below, map files and their
//    `sourceMappingURL` comments both removed so nothing points at a missing file.
// 5. dist/cli/main.js (the `kb-voice` bin; tsc keeps its shebang) is made executable.
// 6. The workspace package kb-voice-emulator: `tsc -p emulator/tsconfig.json` emits emulator/dist
//    (its `kb-voice/schemas` imports resolve to the dist/ just built, through node_modules/kb-voice)
//    and emulator/dist/bin.js (the `kb-voice-emulator` bin) is made executable.
// 7. The workspace package kb-voice-qa: `tsc -p qa/tsconfig.json` emits qa/dist (Node side), and
//    esbuild bundles its harness page script (qa/src/browser/harness.ts) with kb-voice's built
//    browser entry (dist/index.js, simple-peer vendored) into one module, qa/dist/harness.bundle.js, which
//    the fixture serves to the page (a test page has no bundler).
//
// Only JavaScript is rewritten: the .d.ts files still name 'simple-peer' for types (see the
// package checks in scripts/check-package.mjs).
import { spawnSync } from 'node:child_process';
import { chmod, copyFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { buildInputsHash, recordBuild } from './build-inputs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const vendorFile = path.join(dist, 'vendor', 'simple-peer.js');
const emulatorDir = path.join(root, 'emulator');
const qaDir = path.join(root, 'qa');

/** dist/ folders of server-only code, published without source maps (see 4c). */
const SERVER_ONLY = ['relay', 'cli'];

/** `this._debug(` calls in simple-peer 9's index.js (see trimSimplePeer). */
const SIMPLE_PEER_DEBUG_CALLS = 41;
/**
 * simple-peer 9's public methods that src/client/peer.ts (the copy's only user; the Peer is never
 * handed to apps) does not call, left out of the copy by trimSimplePeer. Nothing inside simple-peer
 * calls them either (the build fails if a method is missing or named again after removal).
 */
const SIMPLE_PEER_UNUSED_METHODS = ['address', 'removeStream', 'removeTrack'];
/**
 * What simple-peer 9's index.js uses of `buffer` and `randombytes`: the shims provide exactly that
 * (scripts/shims/buffer.cjs, randombytes.cjs), so a simple-peer using more must fail the build.
 */
const SIMPLE_PEER_SHIMMED_USES = { 'Buffer.': 1, 'randombytes(': 2 };

/** Node built-ins the vendored bundle must never reference (checked after building). */
const NODE_BUILTIN_IMPORT = /\brequire\(\s*["'](?:node:)?[a-z_/]+["']\s*\)|\bfrom\s*["']node:/;

async function main() {
  const started = Date.now();
  // Hashed before building: an input edited during the build makes the record stale, not wrong.
  const inputs = buildInputsHash();
  await rm(dist, { recursive: true, force: true });
  await rm(path.join(emulatorDir, 'dist'), { recursive: true, force: true });
  await rm(path.join(qaDir, 'dist'), { recursive: true, force: true });

  runTsc('tsconfig.build.json');
  await dropServerSourceMaps();
  await bundleSimplePeer();
  const rewritten = await pointImportsAtVendoredSimplePeer();
  await bundleWidget();
  await copyFile(path.join(root, 'src', 'widget', 'jsx.d.ts'), path.join(dist, 'widget', 'jsx.d.ts'));
  await buildNoiseAssets();
  await chmod(path.join(dist, 'cli', 'main.js'), 0o755);
  runTsc(path.join('emulator', 'tsconfig.json'));
  await chmod(path.join(emulatorDir, 'dist', 'bin.js'), 0o755);
  runTsc(path.join('qa', 'tsconfig.json'));
  await bundleQaHarness();
  recordBuild(inputs);

  console.log(
    `build: dist/, emulator/dist/ and qa/dist/ ready in ${((Date.now() - started) / 1000).toFixed(1)} s ` +
      `(simple-peer vendored; ${rewritten} module(s) re-pointed)`,
  );
}

function runTsc(project) {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', project], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) fail(`tsc -p ${project} failed`);
}

async function dropServerSourceMaps() {
  for (const folder of SERVER_ONLY) {
    const entries = await readdir(path.join(dist, folder), { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
      const file = path.join(entry.parentPath ?? entry.path, entry.name);
      const code = await readFile(file, 'utf8');
      const next = code.replace(/\n\/\/# sourceMappingURL=[^\n]*\.map\s*$/, '\n');
      if (next !== code) await writeFile(file, next);
      await rm(`${file}.map`, { force: true });
    }
  }
}

async function bundleSimplePeer() {
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [path.join(root, 'scripts', 'vendor', 'simple-peer.cjs')],
    outfile: vendorFile,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2020',
    // Readable and tree-shakeable output; the consumer's bundler minifies.
    minify: false,
    sourcemap: true,
    sourcesContent: true,
    legalComments: 'inline',
    define: { global: 'globalThis' },
    alias: {
      // Never Node's modules of these names, nor the full browserify ports: smaller stand-ins
      // with the same behaviour for what this code uses (each shim says what that is and has a
      // test comparing it with Node's module in test/package).
      events: path.join(root, 'scripts', 'shims', 'events.cjs'),
      buffer: path.join(root, 'scripts', 'shims', 'buffer.cjs'),
      randombytes: path.join(root, 'scripts', 'shims', 'randombytes.cjs'),
      debug: path.join(root, 'scripts', 'shims', 'debug.cjs'),
      'get-browser-rtc': path.join(root, 'scripts', 'shims', 'get-browser-rtc.cjs'),
      'err-code': path.join(root, 'scripts', 'shims', 'err-code.cjs'),
      'queue-microtask': path.join(root, 'scripts', 'shims', 'queue-microtask.cjs'),
    },
    plugins: [trimReadableStream(), trimSimplePeer()],
    logLevel: 'warning',
    metafile: true,
  });
  if (result.errors.length > 0) fail('esbuild failed to bundle simple-peer');

  const code = await readFile(vendorFile, 'utf8');
  const problems = [];
  if (NODE_BUILTIN_IMPORT.test(code)) problems.push('imports a Node built-in');
  // A free `global`/`process` would throw "is not defined" in browsers (nothing in the bundle uses
  // `process` since the Duplex stand-in replaced readable-stream; the stand-ins are all CommonJS, so
  // esbuild adds no ESM interop helpers); the only allowed mentions are property accesses.
  const plain = stripStringsAndComments(code);
  if (/(?<![.\w$])global(?![\w$])(?!This)/.test(plain)) problems.push('references `global`');
  if (/(?<![.\w$])process(?![\w$])/.test(plain)) problems.push('references `process`');
  if (code.includes("Dynamic require of")) problems.push('contains a dynamic require() that cannot run in ESM');
  if (problems.length > 0) fail(`dist/vendor/simple-peer.js ${problems.join(', ')}`);
}

async function buildNoiseAssets() {
  const out = path.join(dist, 'noise');
  await bundleStandalone(path.join(root, 'src', 'noise', 'worklet.ts'), path.join(out, 'rnnoise-worklet.js'), {
    tsconfigRaw: { compilerOptions: { paths: {} } },
  });
  const from = path.join(root, 'node_modules', '@sapphi-red', 'web-noise-suppressor');
  // The SIMD build only: every browser with AudioWorklet has run WebAssembly SIMD since 2023 (Safari 16.4),
  // and the plain build would cost every install 153 KB (the install-size check).
  await copyFile(path.join(from, 'dist', 'rnnoise_simd.wasm'), path.join(out, 'rnnoise_simd.wasm'));
  await copyFile(path.join(from, 'LICENSE'), path.join(out, 'rnnoise-wasm-LICENSE.txt'));
}

async function bundleWidget() {
  await bundleStandalone(path.join(dist, 'widget', 'index.js'), path.join(dist, 'kb-voice-widget.js'), { sourcemap: true, legalComments: 'eof' });
}

/** qa/dist/harness.bundle.js: the harness page's script with kb-voice's browser entry, self-contained. */
async function bundleQaHarness() {
  await bundleStandalone(path.join(qaDir, 'src', 'browser', 'harness.ts'), path.join(qaDir, 'dist', 'harness.bundle.js'), {
    // kb-voice as built (its vendored simple-peer), not its sources through tsconfig paths.
    tsconfigRaw: { compilerOptions: { paths: {} } },
    alias: { 'kb-voice': path.join(dist, 'index.js'), 'kb-voice/sources': path.join(dist, 'sources', 'index.js') },
  });
}

/** One self-contained, minified browser module (checked: no import left, no Node built-in). */
async function bundleStandalone(entry, outfile, extra) {
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    logLevel: 'warning',
    metafile: true,
    ...extra,
  });
  const name = path.relative(root, outfile);
  const leftover = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((i) => i.path));
  if (leftover.length > 0) fail(`${name} still imports ${leftover.join(', ')}`);
  if (NODE_BUILTIN_IMPORT.test(await readFile(outfile, 'utf8'))) fail(`${name} imports a Node built-in`);
}

/**
 * Keeps readable-stream out of the bundle (CommonJS is not tree-shaken): `readable-stream` resolves
 * to scripts/shims/readable-stream.cjs, whose Duplex is scripts/shims/duplex.cjs (~8.5 KB min+gzip
 * less than readable-stream's). Should anything still reach into readable-stream, its lazily
 * required string decoder, async iterator and Readable.from are scripts/shims/unsupported.cjs
 * (which throws if ever called).
 */
function trimReadableStream() {
  const shims = path.join(root, 'scripts', 'shims');
  return {
    name: 'kb-voice-trim-readable-stream',
    setup(build) {
      build.onResolve({ filter: /^readable-stream$/ }, () => ({ path: path.join(shims, 'readable-stream.cjs') }));
      build.onResolve({ filter: /^string_decoder\/?$/ }, () => ({ path: path.join(shims, 'unsupported.cjs') }));
      build.onResolve({ filter: /^\.\/internal\/streams\/(async_iterator|from)$/ }, (args) =>
        args.importer.includes(`${path.sep}readable-stream${path.sep}`)
          ? { path: path.join(shims, 'unsupported.cjs') }
          : undefined,
      );
    },
  };
}

/**
 * Trims simple-peer 9's index.js for the vendored copy. Its 41 `this._debug(...)` calls go: with the
 * `debug` shim (scripts/shims/debug.cjs) they log nothing, yet their messages cost every consumer
 * ~8.6 KB min (~2 KB min+gzip). Their arguments are strings and property reads (no side effect), so
 * removing the calls changes nothing else. The methods kb-voice never calls go too
 * (SIMPLE_PEER_UNUSED_METHODS). The build fails if the counts change (a new simple-peer).
 */
function trimSimplePeer() {
  return {
    name: 'kb-voice-trim-simple-peer',
    setup(build) {
      build.onLoad({ filter: /[\\/]simple-peer[\\/]index\.js$/ }, async (args) => {
        const code = await readFile(args.path, 'utf8');
        const { text: quiet, count } = withoutCalls(code, 'this._debug(');
        if (count !== SIMPLE_PEER_DEBUG_CALLS) fail(`simple-peer has ${count} this._debug() calls (expected ${SIMPLE_PEER_DEBUG_CALLS}): check trimSimplePeer`);
        const text = SIMPLE_PEER_UNUSED_METHODS.reduce(withoutMethod, quiet);
        for (const [use, expected] of Object.entries(SIMPLE_PEER_SHIMMED_USES)) {
          const uses = text.split(use).length - 1;
          if (uses !== expected) fail(`simple-peer has ${uses} uses of ${use} (the shims provide for ${expected}): check scripts/shims`);
        }
        return { contents: text, loader: 'js' };
      });
    },
  };
}

/**
 * `code` without the class method `name` (two-space indented, as in simple-peer 9's index.js) and
 * the comment above it; fails unless it was there once and nothing left calls it.
 */
function withoutMethod(code, name) {
  const start = new RegExp(`^(?:  /\\*\\*\\n(?:   \\*.*\\n)*)?  ${name} \\([^)]*\\) \\{\\n`, 'gm');
  const found = [...code.matchAll(start)];
  if (found.length !== 1) fail(`simple-peer has ${found.length} methods named ${name} (expected 1): check SIMPLE_PEER_UNUSED_METHODS`);
  const at = found[0].index;
  const close = code.indexOf('\n  }\n', at);
  if (close === -1) fail(`simple-peer's ${name} method has no end at two spaces: check withoutMethod`);
  const text = code.slice(0, at) + code.slice(close + '\n  }\n'.length).replace(/^\n/, '');
  if (text.includes(`this.${name}(`)) {
    fail(`simple-peer calls ${name}() itself: it cannot be left out (SIMPLE_PEER_UNUSED_METHODS)`);
  }
  return text;
}

/** The calls of `callee` (e.g. `this._debug(`) removed from `code`; strings in the arguments may hold parentheses. */
function withoutCalls(code, callee) {
  let text = '';
  let count = 0;
  let from = 0;
  for (let at = code.indexOf(callee); at !== -1; at = code.indexOf(callee, from)) {
    text += code.slice(from, at);
    let depth = 0;
    let i = at + callee.length - 1;
    for (; i < code.length; i++) {
      const c = code[i];
      if (c === "'" || c === '"' || c === '`') {
        for (i++; code[i] !== c; i++) if (code[i] === '\\') i++;
      } else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) break;
    }
    text += 'void 0';
    from = i + 1;
    count++;
  }
  return { text: text + code.slice(from), count };
}

/** Crude but sufficient: drop string literals and comments before scanning for identifiers. */
function stripStringsAndComments(code) {
  return code
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:\\])\/\/.*$/gm, '$1')
    .replace(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g, '""');
}

async function pointImportsAtVendoredSimplePeer() {
  let count = 0;
  const entries = [path.join(dist, 'index.js'), path.join(dist, 'widget', 'index.js')];
  for (const file of await browserModules(entries)) {
    const code = await readFile(file, 'utf8');
    let relative = path.relative(path.dirname(file), vendorFile).split(path.sep).join('/');
    if (!relative.startsWith('.')) relative = `./${relative}`;
    const next = code.replace(
      /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])simple-peer\2/g,
      (_match, lead, quote) => `${lead}${quote}${relative}${quote}`,
    );
    if (next !== code) {
      await writeFile(file, next);
      count += 1;
    }
  }
  return count;
}

/**
 * The emitted modules reachable from the browser entry through relative imports. Only these get
 * the vendored simple-peer; server code (the emulator answers calls with simple-peer on
 * @roamhq/wrtc) keeps the real package, with Node's Buffer and `DEBUG=simple-peer` logging.
 */
async function browserModules(entries) {
  const seen = new Set();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const code = await readFile(file, 'utf8');
    for (const match of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)(["'])(\.{1,2}\/[^"']+)\1/g)) {
      queue.push(path.resolve(path.dirname(file), match[2]));
    }
  }
  return [...seen];
}

function fail(message) {
  console.error(`build: ${message}`);
  process.exit(1);
}

await main();
