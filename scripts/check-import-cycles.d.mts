// Types of scripts/check-import-cycles.mjs (imported by test/repo/import-cycles.test.ts).
export declare const ROOTS: readonly string[];
export declare function specifiersOf(fileName: string, text: string): string[];
export declare function importGraph(root: string): Map<string, string[]>;
export declare function cyclicGroups(graph: ReadonlyMap<string, readonly string[]>): string[][];
export declare function loopThrough(graph: ReadonlyMap<string, readonly string[]>, group: readonly string[]): string[];
export declare function findImportCycles(root: string): { files: string[]; loop: string[] }[];
