import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createRelay, formatLogEntry, LOOPBACK, serveRelay } from '../relay/index.js';

const USAGE = `Usage: kb-voice relay --upstream URL [--port 8788] [--host 127.0.0.1] [--prefix /api/voice]
                      [--allow-origin ORIGIN]... [--allow-host NAME]... [--timeout-ms 30000] [--max-body-bytes 65536]
The API key is read from the environment variable KB_VOICE_API_KEY.
Requests must name a loopback host (localhost, 127.0.0.1, [::1]) unless --allow-host names another.`;

class UsageError extends Error {}

function int(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer >= ${min}, got ${JSON.stringify(value)}`);
  return n;
}

/**
 * `kb-voice relay`: serves the relay from `node:http` for local QA. There is no `authorize` hook
 * here, so every caller is `admin` (it says so on start); production mounts `createRelay` with one.
 * Resolves once the server has closed after SIGINT/SIGTERM; on bad usage or a missing key it prints
 * why and sets exit code 1.
 */
export async function runRelayCommand(argv: string[]): Promise<void> {
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
    return fail(`kb-voice relay: ${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const apiKey = process.env.KB_VOICE_API_KEY;
  if (!apiKey) return fail('kb-voice relay: the environment variable KB_VOICE_API_KEY is not set; refusing to start without the upstream API key.');
  if (!values.upstream) return fail(`kb-voice relay: --upstream URL is required.\n${USAGE}`);

  let relay;
  let port: number;
  try {
    port = int('port', values.port, 8788, 0);
    if (port > 65535) throw new UsageError('--port must be at most 65535');
    relay = createRelay({
      upstream: values.upstream,
      apiKey,
      prefix: values.prefix ?? '/api/voice',
      allowedOrigins: values['allow-origin'] ?? [],
      // DNS rebinding: a page whose own name resolves to 127.0.0.1 must not reach this admin relay.
      allowedHosts: [LOOPBACK, ...(values['allow-host'] ?? [])],
      timeoutMs: int('timeout-ms', values['timeout-ms'], 30_000, 1),
      maxBodyBytes: int('max-body-bytes', values['max-body-bytes'], 65_536, 1),
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
    server = await serveRelay(relay, { port, host: values.host ?? '127.0.0.1' });
  } catch (error) {
    return fail(`kb-voice relay: cannot listen: ${(error as Error).message}`);
  }
  process.stderr.write(
    'kb-voice relay: WARNING: no authorize hook; every caller is treated as admin and reaches every session of every robot.\n' +
      '                For local QA only. In production mount createRelay() from kb-voice/relay with an authorize hook.\n',
  );
  process.stdout.write(`kb-voice relay listening on ${server.url} (prefix ${relay.prefix || '/'}, upstream ${new URL(values.upstream).origin})\n`);

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
