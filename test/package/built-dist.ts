import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Absolute path of a file in the repository's dist/ (what the npm package ships). */
export function distPath(relative: string): string {
  return fileURLToPath(new URL(`../../dist/${relative}`, import.meta.url));
}

/**
 * test/package checks the BUILT package, so it needs dist/. `npm test` builds first; alone, run
 * `npm run build && npx vitest run test/package`. Building here instead would race between files.
 */
export function requireDist(...files: string[]): void {
  const missing = files.filter((file) => !existsSync(distPath(file)));
  if (missing.length > 0) {
    throw new Error(`dist/ is not built (missing ${missing.join(', ')}): run npm run build first`);
  }
}
