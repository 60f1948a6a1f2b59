#!/usr/bin/env node
/** The `kb-voice-emulator` command (also run by `kb-voice emulator` when this package is installed). */
import { runEmulatorCommand } from './cli.js';

runEmulatorCommand(process.argv.slice(2)).then(
  (code) => {
    // exitCode, not exit(): the server keeps the process alive through its open handles.
    if (typeof code === 'number' && code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`kb-voice-emulator: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
