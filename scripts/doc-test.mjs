#!/usr/bin/env node
// `node scripts/doc-test.mjs [FILE.md ...]` (default: every documentation page, see scripts/lib/doc-pages.mjs:
// README.md, docs/*.md and each top-level folder's README.md): every fenced code block of the files says what
// is done with it, in its info string, and is checked accordingly:
//   ```ts run          type-checked, then run with node as its own ES module; it must exit by
//                      itself with code 0 (no signal, no process.exit needed, within 120 s)
//   ```ts check        type-checked only (browser code, server code needing your services)
//   ```LANG skip: WHY  not checked (shell commands, HTML, fragments); the reason is required
// A block with no mode, an unknown one, or a skip without a reason fails: nothing is silently
// unchecked. TypeScript/JavaScript blocks (ts, tsx, js, mjs) may be run or checked; any other
// language only skipped.
//
// Blocks import the packages by the names users write (`kb-voice`, `kb-voice/relay`,
// `kb-voice-emulator`, `@roamhq/wrtc`…) and get the BUILT packages through node_modules and their
// exports maps (run `npm run build` first; `npm test` does). The check is one strict tsc program,
// each block a separate module, with DOM and Node types. Names a block uses but does not define
// (your app's `render`, `aiId`…) are declared in an HTML comment right above its fence, invisible
// on GitHub:  <!-- doc-test: declare const aiId: string; declare function render(s: string): void; -->
// Run blocks start in a folder holding `question.wav` (a spoken question, test/fixtures/audio).
//
// Options: --work DIR (default test-results/doc-test; inside the repository, so bare imports resolve
// through its node_modules as in a user's app), --timeout-ms N (run blocks, default 120000).
// Writes DIR/report.json ({ passed, failed, skipped, blocks }) and exits 1 on any failure.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { docPages } from './lib/doc-pages.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let work = path.join(root, 'test-results', 'doc-test');
let runTimeoutMs = 120_000;
const CODE_LANGS = new Set(['ts', 'typescript', 'tsx', 'js', 'javascript', 'mjs']);
const MODES = new Set(['run', 'check', 'skip']);

/**
 * The fenced blocks of a markdown file: `{ file, line, lang, mode, reason, code, prelude, problem }`.
 * `problem` is set when the info string is not valid.
 */
export function extractBlocks(markdown, file) {
  const lines = markdown.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    // CommonMark: a backtick fence's info string has no backtick (else it is inline code).
    if (fence[0] === '`' && info.includes('`')) continue;
    const body = [];
    let j = i + 1;
    const close = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    while (j < lines.length && !close.test(lines[j])) body.push(lines[j++].slice(indent.length));
    blocks.push({ file, line: i + 1, ...parseInfo(info.trim()), code: body.join('\n') + '\n', prelude: preludeAbove(lines, i) });
    i = j;
  }
  return blocks;
}

function parseInfo(info) {
  const match = /^(\S*)\s*(\S*?)(?::|\s|$)\s*(.*)$/.exec(info);
  const lang = match?.[1] ?? '';
  const mode = match?.[2] ?? '';
  const reason = (match?.[3] ?? '').trim();
  const block = { lang, mode, reason };
  if (!mode) return { ...block, problem: `no mode: tag it \`${lang || 'LANG'} run\`, \`${lang || 'LANG'} check\` or \`${lang || 'LANG'} skip: why\`` };
  if (!MODES.has(mode)) return { ...block, problem: `unknown mode "${mode}" (run, check or skip: why)` };
  if (mode === 'skip' && !reason) return { ...block, problem: 'skip needs a reason: `skip: why it is not checked`' };
  if (mode !== 'skip' && !CODE_LANGS.has(lang)) return { ...block, problem: `only TypeScript/JavaScript blocks can ${mode}; tag it \`${lang} skip: why\`` };
  return block;
}

/** Declarations from `<!-- doc-test: ... -->` directly above the fence (blank lines allowed). */
function preludeAbove(lines, fenceIndex) {
  let k = fenceIndex - 1;
  while (k >= 0 && lines[k].trim() === '') k--;
  if (k < 0 || !lines[k].trim().endsWith('-->')) return '';
  let start = k;
  while (start >= 0 && !lines[start].includes('<!--')) start--;
  const comment = lines.slice(start, k + 1).join('\n');
  const found = /<!--\s*doc-test:([\s\S]*?)-->/.exec(comment);
  return found ? found[1].trim() : '';
}

function moduleName(block) {
  const base = path.relative(root, block.file).replace(/[^A-Za-z0-9]+/g, '-');
  const ext = { js: 'mjs', javascript: 'mjs', mjs: 'mjs', tsx: 'tsx' }[block.lang] ?? 'mts';
  return `${base}-L${block.line}.${ext}`;
}

/** One tsc program over every checked and run block; returns diagnostics per module file. */
function typeCheck(blocks) {
  const files = [];
  for (const block of blocks) {
    const name = moduleName(block);
    // The prelude goes on the block's first line so diagnostics keep the README's line numbers.
    const prelude = block.prelude ? `${block.prelude.replace(/\n/g, ' ')} ` : '';
    const [first, ...rest] = block.code.split('\n');
    writeFileSync(path.join(work, name), [`${prelude}${first}`, ...rest].join('\n'));
    files.push(name);
  }
  writeFileSync(
    path.join(work, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM', 'DOM.Iterable'],
        types: ['node'], strict: true, noEmit: false, outDir: 'out', allowJs: true, checkJs: true, skipLibCheck: true,
        moduleDetection: 'force', sourceMap: false, declaration: false, rootDir: '.', jsx: 'react-jsx',
      },
      files,
    }, null, 2),
  );
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(work, 'tsconfig.json'), '--pretty', 'false'], { cwd: work, encoding: 'utf8' });
  // Errors by block module; '*' holds any other (a config problem, a file that is not a block),
  // which fails every block.
  const errors = new Map();
  const add = (key, error) => errors.set(key, [...(errors.get(key) ?? []), error]);
  for (const line of `${result.stdout}${result.stderr}`.split('\n')) {
    const m = /^(.*?)\((\d+),(\d+)\): (error .*)$/.exec(line.trim());
    if (m && files.includes(path.basename(m[1]))) add(path.basename(m[1]), { line: Number(m[2]), message: m[4] });
    else if (m) add('*', { line: 0, message: line.trim() });
    else if (/^error /.test(line.trim())) add('*', { line: 0, message: line.trim() });
  }
  if (result.status !== 0 && errors.size === 0) errors.set('*', [{ line: 0, message: `${result.stdout}${result.stderr}`.trim() || `tsc exited with ${result.status}` }]);
  return errors;
}

function runModule(block) {
  // tsc's output names: .mts -> .mjs, .tsx -> .js (an ES module: the repository's package.json says "type": "module").
  const file = path.join(work, 'out', moduleName(block).replace(/\.mts$/, '.mjs').replace(/\.tsx$/, '.js'));
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [file], { cwd: path.join(work, 'cwd'), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (b) => (output += b));
    child.stderr.on('data', (b) => (output += b));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, runTimeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output, timedOut, seconds: (Date.now() - started) / 1000 });
    });
  });
}

async function main(files) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(path.join(work, 'cwd'), { recursive: true });
  copyFileSync(path.join(root, 'test', 'fixtures', 'audio', 'warranty.wav'), path.join(work, 'cwd', 'question.wav'));

  const blocks = files.flatMap((file) => extractBlocks(readFileSync(file, 'utf8'), file));
  const report = [];
  const where = (b, line = b.line) => `${path.relative(process.cwd(), b.file)}:${line}`;
  const fail = (b, message) => report.push({ block: b, at: where(b), mode: b.mode, ok: false, message });

  for (const b of blocks.filter((b) => b.problem)) fail(b, b.problem);
  for (const b of blocks.filter((b) => !b.problem && b.mode === 'skip')) report.push({ block: b, at: where(b), mode: 'skip', ok: true, message: b.reason });

  const code = blocks.filter((b) => !b.problem && b.mode !== 'skip');
  const started = Date.now();
  const errors = code.length ? typeCheck(code) : new Map();
  console.log(`type-checked ${code.length} block(s) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const e of errors.get('*') ?? []) console.log(e.message);
  for (const b of code) {
    const found = errors.get(moduleName(b)) ?? (errors.has('*') ? [{ line: 0, message: 'tsc failed (see above)' }] : []);
    if (found.length) {
      // Module line n is README line b.line + n (the fence is line b.line).
      fail(b, found.map((e) => `${where(b, b.line + e.line)}: ${e.message}`).join('\n'));
    } else if (b.mode === 'check') {
      report.push({ block: b, at: where(b), mode: 'check', ok: true });
    } else {
      const r = await runModule(b);
      const ok = r.code === 0 && r.signal === null && !r.timedOut;
      const how = r.timedOut ? `did not exit within ${runTimeoutMs / 1000} s (a handle left open?)` : r.signal ? `killed by ${r.signal}` : `exit code ${r.code}`;
      report.push({ block: b, at: where(b), mode: 'run', ok, seconds: r.seconds, message: ok ? `exit 0 in ${r.seconds.toFixed(1)} s` : `${how}\n${r.output.trim()}` });
    }
  }

  // In document order, whatever the order of the work.
  report.sort((x, y) => files.indexOf(x.block.file) - files.indexOf(y.block.file) || x.block.line - y.block.line);
  for (const r of report) delete r.block;
  for (const r of report) {
    const label = !r.ok ? 'FAIL' : r.mode === 'skip' ? 'skip' : 'ok  ';
    console.log(`${label}  ${r.at}  ${r.mode}${r.message ? `  ${r.message.split('\n').join('\n      ')}` : ''}`);
  }
  const summary = {
    passed: report.filter((r) => r.ok && r.mode !== 'skip').length,
    failed: report.filter((r) => !r.ok).length,
    skipped: report.filter((r) => r.ok && r.mode === 'skip').length,
    blocks: report,
  };
  writeFileSync(path.join(work, 'report.json'), JSON.stringify(summary, null, 2));
  console.log(`doc-test: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped (${blocks.length} blocks in ${files.map((f) => path.relative(process.cwd(), f)).join(', ')})`);
  return summary.failed === 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = [];
  for (let i = 2; i < process.argv.length; i++) {
    const arg = process.argv[i];
    if (arg === '--work') work = path.resolve(process.argv[++i]);
    else if (arg === '--timeout-ms') runTimeoutMs = Number(process.argv[++i]);
    else args.push(arg);
  }
  const files = (args.length ? args : docPages(root)).map((f) => path.resolve(f));
  process.exitCode = (await main(files)) ? 0 : 1;
}
