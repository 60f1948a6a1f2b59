// What `npm run build` reads, hashed: lets `npm test` and `npm run demo` skip a build whose output is
// already in dist/ (building again would take the same ~15-20 s for nothing). The package has no
// `prepare`/`prepack` script (npm warns about lifecycle scripts on install, and the published
// manifest must have none): `npm test`, `npm run demo` and `npm run release` build when needed.
// build.mjs records the hash after a successful build; the record lives in node_modules/.cache,
// never in dist/ (which is published).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const record = path.join(root, 'node_modules', '.cache', 'kb-voice', 'build-inputs.sha256');

/** Folders and files the build reads (its sources, shims, configs and the installed versions). */
const INPUTS = [
  'src', 'emulator/src', 'qa/src', 'scripts/build.mjs', 'scripts/shims', 'scripts/vendor',
  'tsconfig.json', 'tsconfig.build.json', 'emulator/tsconfig.json', 'qa/tsconfig.json',
  'package.json', 'emulator/package.json', 'qa/package.json', 'package-lock.json',
];
/** What the build writes: a skipped build needs all of it present. */
const OUTPUTS = ['dist/index.js', 'dist/vendor/simple-peer.js', 'dist/kb-voice-widget.js', 'dist/widget/jsx.d.ts', 'dist/cli/main.js', 'emulator/dist/index.js', 'emulator/dist/bin.js', 'qa/dist/index.js', 'qa/dist/harness.bundle.js'];

function files(relative) {
  const full = path.join(root, relative);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [relative];
  return readdirSync(full, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => files(path.join(relative, entry.name)));
}

/** The hash of every build input (paths and contents). */
export function buildInputsHash() {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(files)) {
    hash.update(file).update('\0').update(readFileSync(path.join(root, file))).update('\0');
  }
  return hash.digest('hex');
}

/** Called by build.mjs once a build succeeded. */
export function recordBuild(hash = buildInputsHash()) {
  mkdirSync(path.dirname(record), { recursive: true });
  writeFileSync(record, hash);
}

/** True when dist/ holds the build of the current inputs. */
export function buildIsCurrent() {
  if (!OUTPUTS.every((file) => existsSync(path.join(root, file)))) return false;
  try {
    return readFileSync(record, 'utf8') === buildInputsHash();
  } catch {
    return false;
  }
}
