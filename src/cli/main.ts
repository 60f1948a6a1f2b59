#!/usr/bin/env node
/**
 * The `kb-voice` command: dispatches to a subcommand. Each subcommand is imported only when
 * chosen, so `kb-voice relay` never loads the emulator's WebRTC/VAD native and wasm modules and
 * `kb-voice --help` loads neither.
 */
import { readFileSync } from 'node:fs';

const USAGE = `Usage: kb-voice <command> [options]

Commands:
  emulator   Run the local service emulator (HTTP API + realtime voice) for development and QA
             (the separate package kb-voice-emulator: npm install -D kb-voice-emulator).
             kb-voice emulator [--port 8787] [--host 127.0.0.1] [--api-key KEY] [--agent-build-ms 5700]
  relay      Run the backend relay that keeps the API key server-side (local QA: every caller is admin).
             KB_VOICE_API_KEY=KEY kb-voice relay --upstream URL [--port 8788] [--prefix /api/voice]
                                                 [--allow-origin ORIGIN]... [--allow-host NAME]...

Options:
  -h, --help     Show this help (or a command's: kb-voice <command> --help)
  -v, --version  Show the version
`;

/** What a subcommand module exports; it may resolve to an exit code. */
type CommandRunner = (argv: string[]) => Promise<number | void> | number | void;

const COMMANDS: Record<string, () => Promise<CommandRunner>> = {
  emulator: loadEmulatorCommand,
  relay: async () => (await import('./relay-command.js')).runRelayCommand,
};

/** Where `kb-voice emulator` finds the emulator: the separate, optional package. */
const EMULATOR_CLI = 'kb-voice-emulator/cli';

/**
 * The emulator is its own package (it owns the native WebRTC stack that apps must not install):
 * run its command when it is installed, else say in one line how to get it.
 */
async function loadEmulatorCommand(): Promise<CommandRunner> {
  try {
    // A variable specifier: kb-voice does not depend on kb-voice-emulator (nor on its types).
    const specifier: string = EMULATOR_CLI;
    const cli = (await import(specifier)) as { runEmulatorCommand: CommandRunner };
    return cli.runEmulatorCommand;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String((error as Error).message).includes('kb-voice-emulator')) throw error;
    return () => {
      process.stderr.write('kb-voice: the emulator is not installed: npm install -D kb-voice-emulator (then: npx kb-voice-emulator)\n');
      return 1;
    };
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    process.stderr.write(USAGE);
    return 2;
  }
  if (command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command === '-v' || command === '--version') {
    process.stdout.write(`${readVersion()}\n`);
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (load === undefined) {
    process.stderr.write(`kb-voice: unknown command '${command}'\n\n${USAGE}`);
    return 2;
  }
  const run = await load();
  const code = await run(rest);
  return typeof code === 'number' ? code : 0;
}

function readVersion(): string {
  // Same relative path from src/cli/main.ts and dist/cli/main.js.
  const pkg: unknown = JSON.parse(
    readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
  );
  return typeof pkg === 'object' && pkg !== null && 'version' in pkg ? String(pkg.version) : '';
}

main(process.argv.slice(2)).then(
  (code) => {
    // exitCode, not exit(): a long-running server command resolves once it is listening and
    // keeps the process alive through its open handles.
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`kb-voice: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
