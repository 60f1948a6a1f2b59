import { defineConfig } from 'vite';

// Vite here serves and builds only the demo QA page (demo/), with NO polyfill, alias or define for
// kb-voice: the page imports the built package by name exactly as a user's Vite app would, which
// is the point. (`npm run demo` starts Vite from scripts/demo-stack.mjs with its own inline config
// plus the emulator and relay; this file is for `npx vite` / `npx vite build` on the page alone.)
//
// The library itself is not built by Vite: scripts/build.mjs runs tsc (one file per module, so
// consumers tree-shake) and esbuild only for simple-peer, which is CommonJS written for browserify
// and needs `global`, `process`, `buffer` and `events` provided inside its own bundle.
export default defineConfig({
  root: 'demo',
  clearScreen: false,
  server: { host: '127.0.0.1', port: 5173, strictPort: true },
  preview: { host: '127.0.0.1' },
  build: { outDir: '../test-results/demo-build', emptyOutDir: true },
});
