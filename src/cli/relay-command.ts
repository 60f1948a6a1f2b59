import { randomUUID } from 'node:crypto';
import { createRelay, formatLogEntry, LOOPBACK, serveRelay } from '../relay/index.js';
import { integerOption, parseCommandArgs, UsageError, withUsage } from './index.js';

const USAGE = `Usage: kb-voice relay --upstream URL [--port 8788] [--host 127.0.0.1] [--prefix /api/voice]
                      [--allow-origin ORIGIN]... [--allow-host NAME]... [--timeout-ms 30000] [--max-body-bytes 65536]
The API key is read from the environment variable KB_VOICE_API_KEY.
Requests must name a loopback host (localhost, 127.0.0.1, [::1]) unless --allow-host names another.`;

/** Parses the relay command's arguments (throws `UsageError`). */
export function parseRelayArgs(argv: string[]) {
  const { values } = parseCommandArgs(argv, {
    upstream: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    prefix: { type: 'string' },
    'allow-origin': { type: 'string', multiple: true },
    'allow-host': { type: 'string', multiple: true },
    'timeout-ms': { type: 'string' },
    'max-body-bytes': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  return {
    help: values.help === true,
    upstream: values.upstream,
    port: integerOption('port', values.port, 8788, 0, 65535),
    host: values.host ?? '127.0.0.1',
    prefix: values.prefix ?? '/api/voice',
    allowOrigins: values['allow-origin'] ?? [],
    allowHosts: values['allow-host'] ?? [],
    timeoutMs: integerOption('timeout-ms', values['timeout-ms'], 30_000, 1, 3_600_000),
    maxBodyBytes: integerOption('max-body-bytes', values['max-body-bytes'], 65_536, 1, 2 ** 31),
  };
}

/**
 * `kb-voice relay`: serves the relay from `node:http` for local QA. There is no `authorize` hook
 * here, so every caller is `admin` (it says so on start); production mounts `createRelay` with one.
 * Resolves once the server has closed after SIGINT/SIGTERM; a usage error resolves to exit code 2
 * (`USAGE_EXIT_CODE`, as every kb-voice command), a missing key or a relay that cannot start sets 1.
 */
export function runRelayCommand(argv: string[]): Promise<number | void> {
  return withUsage('kb-voice relay', USAGE, () => relayCommand(argv));
}

async function relayCommand(argv: string[]): Promise<void> {
  const args = parseRelayArgs(argv);
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const apiKey = process.env.KB_VOICE_API_KEY;
  const { upstream, port } = args;
  if (!upstream) throw new UsageError('--upstream URL is required');
  if (!apiKey) return fail('kb-voice relay: the environment variable KB_VOICE_API_KEY is not set; refusing to start without the upstream API key.');

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
    // Every option comes from the arguments: a value createRelay refuses (an ftp:// upstream, an
    // origin that is not one) is a usage error.
    throw new UsageError((error as Error).message);
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
