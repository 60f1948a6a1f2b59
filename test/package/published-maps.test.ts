import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { distPath, requireDist } from './built-dist.js';

// scripts/build.mjs (4c): source maps, with their sources inlined, ship for what browser apps bundle;
// the server-only dist/relay and dist/cli ship without (the install-size budget), and none of their
// modules points at a map that is not there. The vendored simple-peer has no debug call left.

function jsFiles(folder: string): string[] {
  return readdirSync(distPath(folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe('published source maps (dist/)', () => {
  it('server-only folders: no map, no sourceMappingURL', () => {
    requireDist('relay/index.js', 'cli/main.js');
    for (const folder of ['relay', 'cli']) {
      const files = jsFiles(folder);
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        expect(readFileSync(file, 'utf8'), file).not.toMatch(/sourceMappingURL/);
        expect(() => readFileSync(`${file}.map`), file).toThrow();
      }
    }
  });

  it('browser modules: a map with the TypeScript sources inlined', () => {
    requireDist('index.js', 'client/session.js');
    for (const folder of ['client', 'api', 'schemas', 'noise']) {
      for (const file of jsFiles(folder)) {
        if (file.endsWith('rnnoise-worklet.js')) continue; // esbuild's one-file worklet, not tsc's
        expect(readFileSync(file, 'utf8'), file).toMatch(/\/\/# sourceMappingURL=[\w.-]+\.js\.map\s*$/);
        const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[]; sourcesContent?: string[] };
        expect(map.sourcesContent?.[0]?.length ?? 0, file).toBeGreaterThan(0);
      }
    }
  });

  it('vendored simple-peer: its no-op debug calls are gone, the rest kept', () => {
    requireDist('vendor/simple-peer.js');
    const code = readFileSync(distPath('vendor/simple-peer.js'), 'utf8');
    expect(code).not.toMatch(/this\._debug\(/);
    expect(code).toMatch(/_onIceStateChange\(\)/);
  });
});
