import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SCRIPT_ATTEMPTS, scriptTranscript } from '../../qa/src/service.js';

// Issue 44's busy-core run: Artillery's Playwright engine failed a scenario with "could not reach the
// emulator to script the transcript" (one PUT that got no answer). The PUT replaces the session's
// queue, so one that got no answer is sent again, a bounded number of times; an answer is final.

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** An emulator stand-in: `answer(n)` for the n-th PUT (1-based): a status, or 'reset' (the connection dropped, no answer). */
async function stub(answer: (n: number) => number | 'reset'): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c));
    req.on('end', () => {
      bodies.push(JSON.parse(raw));
      const a = answer(bodies.length);
      if (a === 'reset') return req.socket.destroy();
      res.writeHead(a, { 'content-type': 'application/json' }).end(a < 300 ? '' : '{"detail":"bad"}');
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

describe('scriptTranscript (kb-voice-qa)', () => {
  it('sends a PUT that got no answer again: the second reaches the emulator', async () => {
    const emu = await stub((n) => (n === 1 ? 'reset' : 204));
    await scriptTranscript(emu.url, 'session-1', 'How long is the warranty?');
    expect(emu.bodies).toEqual([
      { session_id: 'session-1', utterances: ['How long is the warranty?'] },
      { session_id: 'session-1', utterances: ['How long is the warranty?'] },
    ]);
  });

  it(`gives up after ${SCRIPT_ATTEMPTS} attempts with no answer, saying so`, async () => {
    const emu = await stub(() => 'reset');
    await expect(scriptTranscript(emu.url, undefined, 'Hi')).rejects.toThrow(`could not reach the emulator at ${emu.url} to script the transcript (${SCRIPT_ATTEMPTS} attempts)`);
    expect(emu.bodies).toHaveLength(SCRIPT_ATTEMPTS);
  });

  it('an answer is final, an error too: sent once', async () => {
    const emu = await stub(() => 422);
    await expect(scriptTranscript(emu.url, 's', 'Hi')).rejects.toThrow('PUT /_emulator/script answered 422');
    expect(emu.bodies).toHaveLength(1);
  });
});
