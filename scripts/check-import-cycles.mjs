#!/usr/bin/env node
// `node scripts/check-import-cycles.mjs [--root DIR]`: fails when the TypeScript sources of src/,
// emulator/src and qa/src (under DIR, default the repository) import each other in a loop. Every
// kind of import counts: `import`, `import type`, `export ... from`, `import x = require()`, a dynamic
// `import()` and a type-level `typeof import('...')`: a type-only loop still ties the modules' meanings
// together (docs/contributing.md, "Dependencies"). Specifiers are resolved by the TypeScript
// compiler with DIR/tsconfig.json's options (its `paths` map the package names to their sources),
// so `kb-voice/schemas` from the emulator is an edge to src/schemas/index.ts. Files outside the
// three folders (node_modules, tests) are not nodes. Prints each loop as one strongly connected
// group of files with one concrete path through it, and exits 1 if any.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The source folders whose files take part (relative to the root). */
export const ROOTS = ['src', 'emulator/src', 'qa/src'];

/** Compiler options for resolution: the root's tsconfig.json when it has one, else plain NodeNext. */
function compilerOptions(root) {
  const file = path.join(root, 'tsconfig.json');
  if (!existsSync(file)) return { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext };
  const read = ts.readConfigFile(file, ts.sys.readFile);
  if (read.error) throw new Error(`${file}: ${ts.flattenDiagnosticMessageText(read.error.messageText, '\n')}`);
  return ts.parseJsonConfigFileContent(read.config, ts.sys, root).options;
}

/** Every .ts/.tsx/.mts/.cts file under `dir` (declaration files excluded). */
function sources(dir) {
  const found = [];
  const walk = (at) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(full);
      } else if (/\.(?:c|m)?tsx?$/.test(entry.name) && !/\.d\.(?:c|m)?tsx?$/.test(entry.name)) {
        found.push(full);
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return found;
}

/** The module specifiers one file imports, of every kind (see the header). */
export function specifiersOf(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found = [];
  const literal = (node) => (node && ts.isStringLiteralLike(node) ? node.text : undefined);
  const visit = (node) => {
    let spec;
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) spec = literal(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) spec = literal(node.moduleReference.expression);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) spec = literal(node.argument.literal);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) spec = literal(node.arguments[0]);
    if (spec !== undefined) found.push(spec);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The import graph of the root's source folders: file (relative, `/`-separated) -> files it imports. */
export function importGraph(root) {
  const options = compilerOptions(root);
  const files = ROOTS.flatMap((dir) => sources(path.join(root, dir)));
  const nodes = new Set(files.map((f) => path.resolve(f)));
  const cache = ts.createModuleResolutionCache(root, (f) => f, options);
  const rel = (f) => path.relative(root, f).split(path.sep).join('/');
  const graph = new Map();
  for (const file of files) {
    const edges = new Set();
    for (const spec of specifiersOf(file, readFileSync(file, 'utf8'))) {
      const resolved = ts.resolveModuleName(spec, file, options, ts.sys, cache, undefined, ts.ModuleKind.ESNext).resolvedModule;
      const target = resolved && path.resolve(resolved.resolvedFileName);
      if (target && nodes.has(target)) edges.add(rel(target));
    }
    graph.set(rel(file), [...edges].sort());
  }
  return graph;
}

/** Strongly connected groups of more than one file (or a file importing itself), each sorted (Tarjan). */
export function cyclicGroups(graph) {
  let index = 0;
  const indices = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  const connect = (v) => {
    // Iterative, so a long chain of imports cannot overflow the call stack.
    const work = [[v, 0]];
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, i] = frame;
      const edges = graph.get(node) ?? [];
      if (i < edges.length) {
        frame[1]++;
        const next = edges[i];
        if (!indices.has(next)) {
          indices.set(next, index);
          low.set(next, index++);
          stack.push(next);
          onStack.add(next);
          work.push([next, 0]);
        } else if (onStack.has(next)) {
          low.set(node, Math.min(low.get(node), indices.get(next)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === indices.get(node)) {
        const group = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          group.push(member);
        } while (member !== node);
        if (group.length > 1 || edges.includes(node)) groups.push(group.sort());
      }
    }
  };
  for (const v of [...graph.keys()].sort()) if (!indices.has(v)) connect(v);
  return groups.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/** One shortest loop through `group`'s first file, staying inside the group: [a, b, ..., a]. */
export function loopThrough(graph, group) {
  const inside = new Set(group);
  const start = group[0];
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const next of graph.get(node) ?? []) {
      if (!inside.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at = node; at !== undefined && at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

/** The import loops under `root`: `{ files, loop }` for each strongly connected group. */
export function findImportCycles(root) {
  const graph = importGraph(root);
  return cyclicGroups(graph).map((files) => ({ files, loop: loopThrough(graph, files) }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--root');
  const root = at > 0 ? path.resolve(process.argv[at + 1]) : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const cycles = findImportCycles(root);
  for (const { files, loop } of cycles) {
    console.log(`import cycle among ${files.length} file(s): ${loop.join(' -> ')}`);
    if (files.length > loop.length - 1) console.log(`  the group also holds: ${files.filter((f) => !loop.includes(f)).join(', ')}`);
  }
  console.log(cycles.length === 0 ? `import cycles: none in ${ROOTS.join(', ')}` : `import cycles: ${cycles.length}: break each loop (a leaf module of shared types, or a one-way dependency)`);
  process.exitCode = cycles.length === 0 ? 0 : 1;
}
