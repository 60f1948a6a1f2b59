import { afterEach, describe, expect, it } from 'vitest';
import { findImportCycles } from '../../scripts/check-import-cycles.mjs';
import { scriptFixture } from './script-fixture.js';

// scripts/check-import-cycles.mjs (a step of npm test) on throw-away source trees: it must fail on
// any loop of imports among src/, emulator/src and qa/src, type-only ones included, and pass a tree
// whose imports go one way. The loops are found in-process (loading the compiler once); one test
// runs the script itself for its exit status and output.

const { tree, check, cleanup } = scriptFixture('check-import-cycles');
const loops = (dir: string) => findImportCycles(dir).map((c) => c.loop.join(' -> '));
afterEach(cleanup);

describe('check-import-cycles', () => {
  it('fails on a loop of value imports and prints the loop', () => {
    const { status, output } = check(tree({
      'src/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/b.ts': "import { c } from './c.js';\nexport const b = c;\n",
      'src/c.ts': "import { a } from './a.js';\nexport const c = () => a;\n",
    }));
    expect(status, output).toBe(1);
    expect(output).toContain('import cycle among 3 file(s): src/a.ts -> src/b.ts -> src/c.ts -> src/a.ts');
  });

  it('counts type-only imports, type re-exports and import() types as edges', () => {
    expect(loops(tree({
      'src/options.ts': "import type { Tracker } from './tracker.js';\nexport interface Options { tracker?: Tracker }\n",
      'src/tracker.ts': "import { type Options } from './options.js';\nexport interface Tracker { options: Options }\n",
    }))).toEqual(['src/options.ts -> src/tracker.ts -> src/options.ts']);
    expect(loops(tree({
      'src/index.ts': "export type { B } from './b.js';\nexport interface A { n: number }\n",
      'src/b.ts': "export type B = import('./index.js').A;\n",
    }))).toEqual(['src/b.ts -> src/index.ts -> src/b.ts']);
  });

  it('sees loops in emulator/src and qa/src, and a file importing itself', () => {
    expect(loops(tree({
      'emulator/src/store.ts': "import type { Memory } from './memory.js';\nexport type Store = { m: Memory };\n",
      'emulator/src/memory.ts': "import type { Store } from './store.js';\nexport type Memory = { s?: Store };\n",
    }))).toEqual(['emulator/src/memory.ts -> emulator/src/store.ts -> emulator/src/memory.ts']);
    expect(loops(tree({ 'qa/src/self.ts': "export type { X } from './self.js';\nexport type X = 1;\n" }))).toEqual(['qa/src/self.ts -> qa/src/self.ts']);
    // A dynamic import() is an edge too.
    expect(loops(tree({
      'src/lazy.ts': "export const load = () => import('./main.js');\n",
      'src/main.ts': "import { load } from './lazy.js';\nexport const go = load;\n",
    }))).toEqual(['src/lazy.ts -> src/main.ts -> src/lazy.ts']);
  });

  it('passes one-way imports, and ignores files outside the source folders', () => {
    expect(loops(tree({
      'src/types.ts': 'export interface Shape { n: number }\n',
      'src/a.ts': "import type { Shape } from './types.js';\nimport { b } from './b.js';\nexport const a = (s: Shape) => b(s);\n",
      'src/b.ts': "import type { Shape } from './types.js';\nexport const b = (s: Shape) => s.n;\n",
      'test/a.test.ts': "import { a } from '../src/a.js';\nexport { a };\n",
      'src/uses-test.ts': "import type {} from '../test/a.test.js';\n",
    }))).toEqual([]);
    const { status, output } = check(tree({ 'src/a.ts': "import type { B } from './b.js';\nexport type A = B;\n", 'src/b.ts': 'export type B = 1;\n' }));
    expect(status, output).toBe(0);
    expect(output).toContain('import cycles: none');
  });
});
