import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

// The client's method types come from the endpoint table: a wrong argument or result type must not
// compile. Each snippet is type-checked with the project's compiler options.
const API = fileURLToPath(new URL('../../src/api/index.js', import.meta.url));

const GOOD = `
  async function f() {
    const usage = await api.realtime.usage('r', { start_time: '2024-01-01T00:00:00Z' });
    const n: number = usage.session_count;
    const answer: string = (await api.realtime.connect('r', { type: 'offer', sdp: 'v=0' })).sdp;
    const deleted = await api.sessions.delete('r', 's');
    const maybe: string | undefined = deleted?.status;
    return [n, answer, maybe];
  }`;
const BAD: [string, string][] = [
  ['a wrong result type', `async function f() { const x: string = (await api.realtime.usage('r')).session_count; return x; }`],
  ['a wrong body field type', `api.realtime.connect('r', { type: 'offer', sdp: 1 });`],
  ['a body field that does not exist', `api.realtime.warmup('r', { bogus: 1 });`],
  ['a wrong query field type', `api.sessions.messages('r', { session_id: 's', size: 'ten' });`],
  ['a required query left out', `api.realtime.audio('r');`],
  ['a path parameter of the wrong type', `api.sessions.message('r', 1);`],
  ['null treated as a value where E15 may answer 204', `async function f() { const s: string = (await api.sessions.delete('r', 's')).status; return s; }`],
];

/** Type-checks every snippet in one program; the diagnostics of each, by snippet. */
function diagnostics(snippets: string[]): string[][] {
  const dir = mkdtempSync(join(fileURLToPath(new URL('.', import.meta.url)), '.types-'));
  try {
    const files = snippets.map((code, i) => {
      const file = join(dir, `snippet${i}.ts`);
      writeFileSync(file, `import { createApiClient } from ${JSON.stringify(API)};\nconst api = createApiClient({ baseUrl: 'http://x' });\n${code}\nexport {};\n`);
      return file;
    });
    const program = ts.createProgram(files, {
      target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true, noEmit: true, skipLibCheck: true, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: ['node'],
    });
    return files.map((file) => ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('API client types are inferred from the endpoint table', () => {
  let found: string[][];
  beforeAll(() => {
    found = diagnostics([GOOD, ...BAD.map(([, code]) => code)]);
  }, 60_000);

  it('accepts correct calls and infers exact results', () => {
    expect(found[0]).toEqual([]);
  });

  it.each(BAD.map(([name], i) => [name, i + 1] as const))('rejects %s', (_name, i) => {
    expect(found[i]!.length).toBeGreaterThan(0);
  });
});
