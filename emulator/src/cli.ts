import { choiceOption, integerOption, parseCommandArgs, UsageError, withUsage } from 'kb-voice/cli';
import {
  DEFAULT_AGENT_BUILD_MS, DEFAULT_API_KEY, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_REALTIME_SESSIONS, DEFAULT_RESUME_WINDOW_MS, FLITE_VOICES, VOICE_CHOICES, startEmulator,
  type FliteVoice, type VoiceChoice,
} from './index.js';

const HELP = `Usage: kb-voice-emulator [--port 8787] [--host 127.0.0.1] [--api-key KEY] [--agent-build-ms ${DEFAULT_AGENT_BUILD_MS}]

Runs the local service emulator: the HTTP API (E1-E20), realtime voice signaling, seeded data,
GET /openapi.json and the loopback-only control routes under /_emulator. Stop it with Ctrl-C.

Options:
  --port N             TCP port (default 8787; 0 picks a free one)
  --host HOST          interface to bind (default 127.0.0.1)
  --api-key KEY        API key to accept (default ${DEFAULT_API_KEY})
  --agent-build-ms N   time the first realtime task pays without warmup (default ${DEFAULT_AGENT_BUILD_MS})
  --max-body-bytes N   largest request body, 413 above (default ${DEFAULT_MAX_BODY_BYTES})
  --max-sessions N     concurrent realtime sessions, 503 + Retry-After above (default ${DEFAULT_MAX_REALTIME_SESSIONS})
  --resume-window-ms N how long a dropped session can be resumed by an offer naming it (default ${DEFAULT_RESUME_WINDOW_MS})
  --voice V            answer voice: ${VOICE_CHOICES.join(', ')} (default auto: Flite for English)
  --flite-voice V      Flite's voice: ${FLITE_VOICES.join(', ')} (default kal16)
  -h, --help           show this help
`;

function atLeastOne(name: string, n: number): number {
  if (n < 1) throw new UsageError(`--${name} must be at least 1, got ${n}`);
  return n;
}

/** Parses the emulator command's arguments. */
export function parseEmulatorArgs(argv: string[]) {
  const { values } = parseCommandArgs(argv, {
    port: { type: 'string' },
    host: { type: 'string' },
    'api-key': { type: 'string' },
    'agent-build-ms': { type: 'string' },
    'max-body-bytes': { type: 'string' },
    'max-sessions': { type: 'string' },
    'resume-window-ms': { type: 'string' },
    voice: { type: 'string' },
    'flite-voice': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values['api-key'] !== undefined && values['api-key'].trim() === '') throw new UsageError('--api-key must not be empty');
  return {
    help: values.help === true,
    port: integerOption('port', values.port, 8787, 0, 65535),
    host: values.host ?? '127.0.0.1',
    apiKey: values['api-key'] ?? DEFAULT_API_KEY,
    agentBuildMs: integerOption('agent-build-ms', values['agent-build-ms'], DEFAULT_AGENT_BUILD_MS, 0, 600_000),
    maxBodyBytes: atLeastOne('max-body-bytes', integerOption('max-body-bytes', values['max-body-bytes'], DEFAULT_MAX_BODY_BYTES, 0, 2 ** 31)),
    maxRealtimeSessions: atLeastOne('max-sessions', integerOption('max-sessions', values['max-sessions'], DEFAULT_MAX_REALTIME_SESSIONS, 0, 10_000)),
    resumeWindowMs: integerOption('resume-window-ms', values['resume-window-ms'], DEFAULT_RESUME_WINDOW_MS, 0, 86_400_000),
    voice: choiceOption<VoiceChoice>('voice', values.voice, VOICE_CHOICES) ?? 'auto',
    fliteVoice: choiceOption<FliteVoice>('flite-voice', values['flite-voice'], FLITE_VOICES) ?? 'kal16',
  };
}

/**
 * `kb-voice emulator`: starts the emulator, prints its URL and API key once it accepts requests,
 * and closes it cleanly on SIGINT/SIGTERM. Resolves once listening (the server keeps the process
 * alive); resolves to exit code 2 (`USAGE_EXIT_CODE` of kb-voice/cli) on bad arguments.
 */
export function runEmulatorCommand(argv: string[]): Promise<number | void> {
  return withUsage('kb-voice emulator', HELP, () => emulatorCommand(argv));
}

async function emulatorCommand(argv: string[]): Promise<number | void> {
  const args = parseEmulatorArgs(argv);
  if (args.help) {
    process.stdout.write(HELP);
    return 0;
  }
  // A closed stdout (e.g. piped into `head`) must not take the server down.
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});
  const emulator = await startEmulator({
    port: args.port, host: args.host, apiKey: args.apiKey, agentBuildMs: args.agentBuildMs,
    maxBodyBytes: args.maxBodyBytes, maxRealtimeSessions: args.maxRealtimeSessions,
    resumeWindowMs: args.resumeWindowMs, realtime: { voice: args.voice, fliteVoice: args.fliteVoice },
  });
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`kb-voice emulator: ${signal}, shutting down\n`);
    emulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`kb-voice emulator: error while closing: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Handlers first, then the line that tells callers it is up (they may signal right after it).
  process.stdout.write(
    `kb-voice emulator listening on ${emulator.url}\n` +
      `  API key:    ${emulator.apiKey}\n` +
      `  robot:      ${emulator.fixtures.robotId}\n` +
      `  dataset:    ${emulator.fixtures.datasetId}\n` +
      `  OpenAPI:    ${emulator.url}/openapi.json\n`,
  );
}
