#!/usr/bin/env node
// Runs an emulator in its own process for benchmarks that must not share its event loop:
// `node bench/lib/emulator-child.mjs '<startEmulator options as JSON>'` prints one JSON line
// `{ url, apiKey, fixtures }` once it accepts requests, and closes on SIGTERM or when stdin ends.
import { loadEmulator } from './kb.mjs';

const options = JSON.parse(process.argv[2] ?? '{}');
const { startEmulator } = await loadEmulator();
const emulator = await startEmulator({ port: 0, host: '127.0.0.1', ...options });
process.stdout.write(JSON.stringify({ url: emulator.url, apiKey: emulator.apiKey, fixtures: emulator.fixtures, pid: process.pid }) + '\n');

let closing = false;
const stop = async () => {
  if (closing) return;
  closing = true;
  await emulator.close().catch(() => {});
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();

