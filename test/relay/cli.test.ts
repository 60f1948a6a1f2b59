import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USAGE_EXIT_CODE, UsageError } from '../../src/cli/index.js';
import { parseRelayArgs } from '../../src/cli/relay-command.js';
import { spawned, type Spawned } from '../helpers/spawned.js';
import { KEY, rawGet, ROBOT, startFakeUpstream, type FakeUpstream } from './helpers.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function run(args: string[], env: Record<string, string | undefined>): Spawned {
  const { KB_VOICE_API_KEY: _, ...base } = process.env;
  return spawned(process.execPath, ['--import', 'tsx', MAIN, 'relay', ...args], { cwd: ROOT, env: { ...base, ...env } });
}

let upstream: FakeUpstream;
beforeAll(async () => {
  // Echoes only the path: the default echo would hold the key, which the relay refuses to stream.
  upstream = await startFakeUpstream((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: req.url })));
});
afterAll(() => upstream.close());

describe('kb-voice relay arguments', () => {
  it('parses flags as the emulator command does: strict, no positionals, digits-only integers in range', () => {
    expect(parseRelayArgs(['--upstream', 'http://u', '--allow-host', 'a.test', '--allow-host', 'b.test', '--port', '0'])).toMatchObject({ upstream: 'http://u', port: 0, host: '127.0.0.1', allowHosts: ['a.test', 'b.test'], timeoutMs: 30_000 });
    for (const argv of [['--port', 'eighty'], ['--port', '70000'], ['--port', '-1'], ['--timeout-ms', '0'], ['--timeout-ms', '1e3'], ['--bogus'], ['positional']]) {
      expect(() => parseRelayArgs(argv), argv.join(' ')).toThrow(UsageError);
    }
  });
});

describe('kb-voice relay', () => {
  it('refuses to start without KB_VOICE_API_KEY (exit code 1, clear message)', async () => {
    const r = run(['--upstream', upstream.url, '--port', '0'], {});
    // Not a usage error: the call was right, the environment lacks the key.
    expect(await r.exit).toBe(1);
    expect(r.stderr()).toContain('KB_VOICE_API_KEY');
    expect(r.stdout()).not.toContain('http://');
  });

  it('refuses bad usage with exit code 2, as kb-voice-emulator and kb-voice-qa do, and says how to call it', async () => {
    expect(USAGE_EXIT_CODE).toBe(2);
    const cases = [['--port', '0'], ['--upstream', upstream.url, '--port', 'eighty'], ['--upstream', 'ftp://x', '--port', '0'], ['--bogus']];
    const runs = cases.map((args) => run(args, { KB_VOICE_API_KEY: KEY }));
    for (const [i, r] of runs.entries()) {
      expect(await r.exit, cases[i]!.join(' ')).toBe(2);
      expect(r.stderr()).toMatch(/kb-voice relay: /);
      expect(r.stderr()).toContain('Usage: kb-voice relay');
      expect(r.stderr()).not.toContain(KEY);
    }
  });

  it('serves, warns that every caller is admin, prints its URL, and stops on SIGTERM', async () => {
    const r = run(['--upstream', upstream.url, '--port', '0', '--allow-origin', 'http://a.test', '--allow-origin', 'http://b.test', '--allow-host', 'relay.dev.test'], { KB_VOICE_API_KEY: KEY });
    try {
      // (no limit of its own: the child compiles the CLI with tsx first, over 15 s once on a loaded
      // machine; the test's 120 s bound it, and an early exit fails it with the child's output)
      const url = await r.printed(/http:\/\/127\.0\.0\.1:\d+/);
      expect(r.stderr()).toMatch(/admin/);
      expect(r.stderr()).toMatch(/local QA/);

      const res = await fetch(`${url}/api/voice/v1/robots/${ROBOT}/realtime-usage`, { headers: { authorization: 'Bearer caller' } });
      expect(res.status).toBe(200);
      expect(upstream.seen.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(await res.text()).toContain('realtime-usage');

      for (const origin of ['http://a.test', 'http://b.test']) {
        const pre = await fetch(`${url}/api/voice/v1/robots/${ROBOT}/realtime-usage`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET' } });
        expect(pre.status).toBe(204);
        expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
      }
      expect((await fetch(`${url}/api/voice/v1/ais/gen_prompt`, { method: 'POST' })).status).toBe(404);

      // DNS rebinding (#36 item 1): a page whose name resolves to 127.0.0.1 sends its own name as Host.
      const port = Number(new URL(url).port);
      const seen = upstream.seen.length;
      const rebound = `rebind.attacker.example:${port}`;
      expect((await rawGet(port, `/api/voice/v1/robots/${ROBOT}/realtime-usage`, { host: rebound, origin: `http://${rebound}` })).status).toBe(403);
      expect(upstream.seen).toHaveLength(seen);
      expect((await rawGet(port, `/api/voice/v1/robots/${ROBOT}/realtime-usage`, { host: `localhost:${port}` })).status).toBe(200);
      expect((await rawGet(port, `/api/voice/v1/robots/${ROBOT}/realtime-usage`, { host: `relay.dev.test:${port}` })).status).toBe(200);

      r.child.kill('SIGTERM');
      expect(await r.exit).toBe(0);
      expect(r.stdout()).toContain('stopped');
      expect(r.stdout() + r.stderr()).not.toContain(KEY);
    } finally {
      r.child.kill('SIGKILL');
    }
  }, 120_000);
});
