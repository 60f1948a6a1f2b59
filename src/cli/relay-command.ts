import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createRelay, formatLogEntry, LOOPBACK, serveRelay } from '../relay/index.js';

const USAGE = `Usage: kb-voice relay --upstream URL [--port 8788] [--host 127.0.0.1] [--prefix /api/voice]
                      [--allow-origin ORIGIN]... [--allow-host NAME]... [--timeout-ms 30000] [--max-body-bytes 65536]
The API key is read from the environment variable KB_VOICE_API_KEY.
Requests must name a loopback host (localhost, 127.0.0.1, [::1]) unless --allow-host names another.`;

/**
 * Thrown for bad command-line arguments; the message is meant for the user. The relay command and
 * the emulator's (`kb-voice-emulator/cli`) parse the same way, with `node:util` `parseArgs` (strict,
 * no positionals), `UsageError` and the same integer rule, but each keeps its own few lines: the
 * emulator may import only published `kb-voice` entries, and a CLI helper belongs in none of them
 * (it would become public API of the library for two commands).
 */
export class UsageError extends Error {
  readonly code = 'usage';
}

function integer(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got '${value}'`);
  return n;
}

/** Parses the relay command's arguments (throws `UsageError`). */
export function parseRelayArgs(argv: string[]) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        upstream: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        prefix: { type: 'string' },
        'allow-origin': { type: 'string', multiple: true },
        'allow-host': { type: 'string', multiple: true },
        'timeout-ms': { type: 'string' },
        'max-body-bytes': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  return {
    help: values.help === true,
    upstream: values.upstream,
    port: integer('port', values.port, 8788, 0, 65535),
    host: values.host ?? '127.0.0.1',
    prefix: values.prefix ?? '/api/voice',
    allowOrigins: values['allow-origin'] ?? [],
    allowHosts: values['allow-host'] ?? [],
    timeoutMs: integer('timeout-ms', values['timeout-ms'], 30_000, 1, 3_600_000),
    maxBodyBytes: integer('max-body-bytes', values['max-body-bytes'], 65_536, 1, 2 ** 31),
  };
}

/**
 * `kb-voice relay`: serves the relay from `node:http` for local QA. There is no `authorize` hook
 * here, so every caller is `admin` (it says so on start); production mounts `createRelay` with one.
 * Resolves once the server has closed after SIGINT/SIGTERM; on bad usage or a missing key it prints
 * why and sets exit code 1.
 */
export async function runRelayCommand(argv: string[]): Promise<void> {
  let args: ReturnType<typeof parseRelayArgs>;
  try {
    args = parseRelayArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) return fail(`kb-voice relay: ${error.message}\n${USAGE}`);
    throw error;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const apiKey = process.env.KB_VOICE_API_KEY;
  if (!apiKey) return fail('kb-voice relay: the environment variable KB_VOICE_API_KEY is not set; refusing to start without the upstream API key.');
  const { upstream, port } = args;
  if (!upstream) return fail(`kb-voice relay: --upstream URL is required.\n${USAGE}`);

  let relay;
  try {
    relay = createRelay({
      upstream,
      apiKey,
      prefix: args.prefix,
      allowedOrigins: args.allowOrigins,
      // DNS rebinding: a page whose own name resolves to 127.0.0.1 must not reach this admin relay.
      allowedHosts: [LOOPBACK, ...args.allowHosts],
      timeoutMs: args.timeoutMs,
      maxBodyBytes: args.maxBodyBytes,
      // Stated explicitly rather than relying on the library default: this command is for local QA.
      authorize: () => ({ userIdentifier: 'local-admin', role: 'admin' }),
      robots: '*',
      // Grants of this process only (admins need none to read; OpenAI-route ids are minted with it).
      secret: randomUUID(),
      // Upstream failures and relay errors go to stderr (entries never hold the key); requests do not.
      logger: (e) => {
        if (e.level !== 'info') process.stderr.write(`${formatLogEntry(e)}\n`);
      },
    });
  } catch (error) {
    return fail(`kb-voice relay: ${(error as Error).message}`);
  }

  let server;
  try {
    server = await serveRelay(relay, { port, host: args.host });
  } catch (error) {
    return fail(`kb-voice relay: cannot listen: ${(error as Error).message}`);
  }
  process.stderr.write(
    'kb-voice relay: WARNING: no authorize hook; every caller is treated as admin and reaches every session of every robot.\n' +
      '                For local QA only. In production mount createRelay() from kb-voice/relay with an authorize hook.\n',
  );
  process.stdout.write(`kb-voice relay listening on ${server.url} (prefix ${relay.prefix || '/'}, upstream ${new URL(upstream).origin})\n`);

  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      server.close().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  process.stdout.write('kb-voice relay: stopped\n');
}

function fail(message: string): void {
  process.stderr.write(`${message}\n`);
  process.exitCode = 1;
}
