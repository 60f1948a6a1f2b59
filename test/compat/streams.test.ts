/**
 * E3 (and E10) streaming read by Content-Type (#37 3): SSE as the emulator sends it, NDJSON, one
 * JSON answer (a service that ignores `stream`), plain text; anything else a clear invalid_response.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/api/index.js';
import { AI, responses } from '../helpers/samples.js';
import { json, raw, useUpstream, type Upstream } from './upstream.js';

let up: Upstream;
let api: ApiClient;
useUpstream({ timeout: 2_000 }, (u, a) => {
  up = u;
  api = a;
});

/** Sends `pieces` one by one (each a separate write), then ends. */
const pieces = (type: string, parts: string[]) => (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': type });
  for (const part of parts) res.write(part);
  res.end();
};

async function generated(): Promise<string[]> {
  const out: string[] = [];
  for await (const chunk of api.prompts.generateStream({ prompt_in: 'meta' })) out.push(chunk);
  return out;
}

describe('E3 generateStream', () => {
  it('SSE (the emulator\'s form)', async () => {
    up.next(pieces('text/event-stream', ['data: {"delta":"You are "}\n\n', 'data: {"delta":"kind."}\n\n', 'data: [DONE]\n\n']));
    expect(await generated()).toEqual(['You are ', 'kind.']);
  });

  it('NDJSON, a line split across writes and a last line without newline', async () => {
    up.next(pieces('application/x-ndjson; charset=utf-8', ['{"delta":"You "}\n{"del', 'ta":"are "}\n\n', '{"delta":"kind."}']));
    expect(await generated()).toEqual(['You ', 'are ', 'kind.']);
  });

  it('one JSON answer (a service that ignores stream: true) is its prompt in one piece', async () => {
    up.next(json(responses.E3));
    expect(await generated()).toEqual([responses.E3.prompt]);
  });

  it('a text/plain stream is the text itself, a character split across writes kept whole', async () => {
    const bytes = Buffer.from('こんにちは', 'utf8');
    up.next((res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.write(bytes.subarray(0, 4));
      res.end(bytes.subarray(4));
    });
    expect((await generated()).join('')).toBe('こんにちは');
  });

  it('another Content-Type is a clear invalid_response', async () => {
    up.next(raw('<html>Gateway</html>', 200, { 'content-type': 'text/html' }));
    await expect(generated()).rejects.toMatchObject({ code: 'invalid_response', message: expect.stringContaining('text/html') });
  });

  it('a JSON answer of the wrong shape is invalid_response', async () => {
    up.next(json({ prompt: 5 }));
    await expect(generated()).rejects.toMatchObject({ code: 'invalid_response' });
  });

  it('a stream silent longer than the timeout is a timeout', async () => {
    up.next((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"delta":"You "}\n\n');
    });
    // 1 s: the headers and the first piece must come within it, even on a loaded machine.
    const quick = createApiClient({ baseUrl: up.url, retry: 0, timeout: 1_000 });
    const got: string[] = [];
    const run = async () => {
      for await (const chunk of quick.prompts.generateStream({})) got.push(chunk);
    };
    await expect(run()).rejects.toMatchObject({ code: 'timeout' });
    expect(got).toEqual(['You ']);
  });

  it('a stream cut mid-way is invalid_response with the cause', async () => {
    up.next((res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write('{"delta":"You "}\n{"de', () => setTimeout(() => res.socket?.destroy(), 20));
    });
    const error = await generated().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_response', message: expect.stringContaining('connection broke') });
    expect((error as Error).cause).toBeDefined();
  });
});

describe('E10 completionsStream', () => {
  it('one JSON completion is one chunk carrying the message', async () => {
    up.next(json(responses.E10));
    const got = [];
    for await (const c of api.chat.completionsStream({ model: AI, messages: [{ role: 'user', content: 'hi' }] })) got.push(c);
    expect(got).toEqual([{ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: AI, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }] }]);
  });

  it('text/plain is not a chat stream: invalid_response', async () => {
    up.next(raw('Hi', 200, { 'content-type': 'text/plain' }));
    const run = async () => {
      for await (const _ of api.chat.completionsStream({ model: AI, messages: [{ role: 'user', content: 'hi' }] })) void _;
    };
    await expect(run()).rejects.toMatchObject({ code: 'invalid_response' });
  });
});
