// The `process` that simple-peer's CommonJS dependencies (readable-stream, randombytes) expect, for
// the vendored browser bundle only (scripts/build.mjs injects it with esbuild `inject`, so only
// free references to `process` inside that bundle resolve here; nothing global is touched).
// They use `process.nextTick(fn, ...args)`, `process.env.READABLE_STREAM`, `process.browser`,
// `process.version`, and compare streams to `process.stdout`/`process.stderr`. queueMicrotask
// keeps nextTick's "before any timer or I/O" ordering, unlike the `process` npm package's
// setTimeout-based queue.
export const process = {
  browser: true,
  env: {},
  argv: [],
  version: '',
  versions: {},
  platform: 'browser',
  stdout: undefined,
  stderr: undefined,
  nextTick(fn, ...args) {
    queueMicrotask(() => fn(...args));
  },
  emitWarning() {},
};
