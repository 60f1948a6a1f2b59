import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs one of the repository's check scripts (scripts/NAME.mjs) against throw-away folders: `tree()`
 * writes files into a new temp folder, `check(dir)` runs the script with `--root dir`, `cleanup()`
 * (in afterEach) removes every folder made.
 */
export function scriptFixture(name: string) {
  const script = fileURLToPath(new URL(`../../scripts/${name}.mjs`, import.meta.url));
  const dirs: string[] = [];
  return {
    tree(files: Record<string, string | Buffer>): string {
      const dir = mkdtempSync(path.join(os.tmpdir(), `kb-voice-${name}-`));
      dirs.push(dir);
      for (const [file, content] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        writeFileSync(path.join(dir, file), content);
      }
      return dir;
    },
    check(dir: string): { status: number | null; output: string } {
      const result = spawnSync(process.execPath, [script, '--root', dir], { encoding: 'utf8' });
      return { status: result.status, output: `${result.stdout}${result.stderr}` };
    },
    cleanup(): void {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
