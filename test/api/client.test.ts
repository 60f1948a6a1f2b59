import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiClient, ValidationError, type ApiClient } from '../../src/api/index.js';
import { endpoints } from '../../src/schemas/index.js';
import { startFakeServer, type Reply } from '../helpers/fake-server.js';
import { AI, DS, FILE, MSG, responses } from '../helpers/samples.js';

type Server = Awaited<ReturnType<typeof startFakeServer>>;
let server: Server;
let api: ApiClient;
let next: Reply | undefined;
let replies: Reply[] = [];

// Route by method + path template so each call gets its endpoint's sample response.
function route(method: string, path: string): Reply {
  for (const [id, ep] of Object.entries(endpoints)) {
    const re = new RegExp(`^${ep.path.replace(/\{\w+\}/g, '[^/]*')}$`);
    if (ep.method === method && re.test(path)) return { status: ep.status, json: responses[id as keyof typeof responses] };
  }
  return { status: 404, json: { detail: 'Not Found' } };
}

beforeAll(async () => {
  server = await startFakeServer((req) => replies.shift() ?? next ?? route(req.method, req.path));
  api = createApiClient({ baseUrl: server.url, apiKey: 'sk-test', retry: 2 });
});
afterAll(() => server.close());

const last = () => server.requests[server.requests.length - 1]!;

describe('every client method', () => {
  const cases: [string, (a: ApiClient) => Promise<unknown>, string, string, Record<string, string>?, unknown?][] = [
    ['E1', (a) => a.realtime.warmup(AI), 'POST', `/v1/robots/${AI}/realtime/warmup`, undefined, { language: 'ja' }],
    ['RS', (a) => a.realtime.connect(AI, { type: 'offer', sdp: 'v=0', language: 'en' }), 'POST', `/v1/robots/${AI}/realtime/sessions`, undefined, { type: 'offer', sdp: 'v=0', language: 'en' }],
    ['E2', (a) => a.prompts.update(AI, { prompt_in: 'be nice' }), 'PUT', `/v1/ais/${AI}/gen_prompt`, undefined, { prompt_in: 'be nice' }],
    ['E3', (a) => a.prompts.generate({ prompt_in: 'meta', ai_id: AI }), 'POST', '/v1/ais/gen_prompt', undefined, { prompt_in: 'meta', ai_id: AI }],
    ['E4', (a) => a.datasets.refreshFiles(DS, { file_id_list: [FILE], learn_type: 1, embedding: true }), 'PUT', `/v1/datasets/${DS}/files/refresh_list`],
    ['E5', (a) => a.datasets.addLinks(DS, { links: ['https://example.com'] }), 'POST', `/v1/datasets/${DS}/links`, { links_type: 'website' }, { links: ['https://example.com'], spa: false, max_images: 10 }],
    ['E6', (a) => a.sessions.rate(AI, { session_id: 's1', message_id: MSG, rating: 1, source: 'widget' }), 'PATCH', `/v1/${AI}/message_rating`, { session_id: 's1', message_id: MSG, rating: '1', source: 'widget' }, {}],
    ['E7', (a) => a.datasets.deleteFiles(DS, { file_ids: [FILE] }), 'DELETE', `/v1/datasets/${DS}/files`, undefined, { file_ids: [FILE] }],
    ['E8', (a) => a.datasets.updateConfigs(DS, { metadata: { a: 1 } }), 'POST', `/v1/datasets/${DS}/configs`, undefined, { metadata: { a: 1 } }],
    ['E9', (a) => a.pdf.highlight({ file_id: FILE, text: 'battery', page: 1 }), 'POST', '/pdf/highlight'],
    ['E10', (a) => a.chat.completions({ model: AI, messages: [{ role: 'user', content: 'hi' }] }), 'POST', '/v1/digitals/v1/chat/completions'],
    ['E11', (a) => a.realtime.cost(AI, { start_time: '2026-11-01T00:00:00Z' }), 'GET', `/v1/robots/${AI}/realtime-cost`, { start_time: '2026-11-01T00:00:00Z', model: 'auto' }],
    ['E12', (a) => a.realtime.sessionCosts(AI), 'GET', `/v1/robots/${AI}/realtime-cost/sessions`, { model: 'auto' }],
    ['E13', (a) => a.realtime.usage(AI), 'GET', `/v1/robots/${AI}/realtime-usage`, {}],
    ['E14', (a) => a.realtime.audio(AI, { session_id: 's1', segment_index: 0 }), 'GET', `/v1/robots/${AI}/realtime-audio/download`, { session_id: 's1', segment_index: '0' }],
    ['E15', (a) => a.sessions.delete(AI, 's1'), 'DELETE', `/v1/${AI}/sessions/s1`],
    ['E16', (a) => a.datasets.fileMetadata(DS, FILE), 'GET', `/v1/datasets/${DS}/files/${FILE}/metadata`],
    ['E17', (a) => a.sessions.message(AI, MSG), 'GET', `/v1/${AI}/session.messages/${MSG}`],
    ['E18', (a) => a.sessions.references(AI, { message_id: MSG }), 'GET', `/v1/question/references/${AI}`, { message_id: MSG }],
    ['E19', (a) => a.sessions.messages(AI, { session_id: 's1' }), 'GET', `/v1/${AI}/session.messages`, { session_id: 's1', page: '1', size: '50' }],
    ['E20', (a) => a.datasets.integrations(DS, { type: ['feishu', 'notion'], order_by: 'created_at' }), 'GET', `/v1/datasets/${DS}/integrations`, { type: 'notion', page: '1', size: '50', order_by: 'created_at' }],
  ];

  it.each(cases)('%s sends the right request and returns the validated body', async (id, invoke, method, path, query, body) => {
    const result = await invoke(api);
    const req = last();
    expect(req.method).toBe(method);
    expect(req.path).toBe(path);
    expect(req.headers.authorization).toBe('Bearer sk-test');
    if (query) expect(Object.fromEntries(req.query)).toEqual(query);
    if (body !== undefined) expect(JSON.parse(req.body)).toEqual(body);
    expect(result).toMatchObject(responses[id as keyof typeof responses]);
  });

  it('E20 sends an array filter as repeated keys', async () => {
    await api.datasets.integrations(DS, { type: ['feishu', 'notion'] });
    expect(last().query.getAll('type')).toEqual(['feishu', 'notion']);
  });

  it('E15 resolves null on 204 (ignored deletion)', async () => {
    replies = [{ status: 204 }];
    expect(await api.sessions.delete(AI, 'other')).toBeNull();
  });
});

describe('validation and errors', () => {
  it('throws ValidationError before sending a bad call (size: 0 on E20)', async () => {
    const before = server.requests.length;
    const error = await api.datasets.integrations(DS, { size: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).local).toBe(true);
    expect((error as ValidationError).detail).toEqual([{ loc: ['query', 'size'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' }]);
    expect(server.requests.length).toBe(before);
  });

  it('rejects a non-uuid path parameter where the spec says uuid (E1, E20)', async () => {
    const e1 = await api.realtime.warmup('not-a-uuid').catch((e: unknown) => e);
    expect((e1 as ValidationError).detail[0]).toMatchObject({ loc: ['path', 'ai_id'], type: 'uuid_parsing' });
    const e20 = await api.datasets.integrations('nope').catch((e: unknown) => e);
    expect((e20 as ValidationError).detail[0]!.loc).toEqual(['path', 'dataset_id']);
  });

  it('rejects unknown and missing body fields with the 422 shape', async () => {
    // @ts-expect-error deliberately wrong field
    const error = await api.datasets.addLinks(DS, { link: ['x'] }).catch((e: unknown) => e);
    expect((error as ValidationError).detail).toEqual([
      { loc: ['body', 'links'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'link'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
  });

  it('turns a server 422 into ValidationError with its detail', async () => {
    const detail = [{ loc: ['body', 'text'], msg: 'Field required', type: 'missing' }];
    replies = [{ status: 422, json: { detail } }];
    const error = await api.pdf.highlight({ file_id: 'f', text: 'x', page: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).local).toBe(false);
    expect((error as ValidationError).detail).toEqual(detail);
  });

  it('turns other statuses into ApiError with status and body', async () => {
    replies = [{ status: 404, json: { detail: 'Session not found' } }];
    const error = await api.sessions.message(AI, MSG).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'http_error', status: 404, body: { detail: 'Session not found' } });
    expect((error as Error).message).toContain('Session not found');
  });

  it('rejects a response that does not match the schema', async () => {
    replies = [{ status: 200, json: { success: 'yes' } }];
    const error = await api.realtime.warmup(AI).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_response', status: 200 });
  });

  it('keeps unknown response fields (never loses data)', async () => {
    replies = [{ status: 200, json: { success: true, build_ms: 12 } }];
    expect(await api.realtime.warmup(AI)).toEqual({ success: true, build_ms: 12 });
  });

  it('retries idempotent GETs on 5xx, not POSTs', async () => {
    replies = [{ status: 503, json: { detail: 'busy' } }, { status: 200, json: responses.E13 }];
    const before = server.requests.length;
    await api.realtime.usage(AI);
    expect(server.requests.length - before).toBe(2);

    replies = [{ status: 503, json: { detail: 'busy' } }, { status: 200, json: responses.E1 }];
    const before2 = server.requests.length;
    const error = await api.realtime.warmup(AI).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'http_error', status: 503 });
    expect(server.requests.length - before2).toBe(1);
    replies = [];
  });

  it('sends no Authorization header without a key', async () => {
    const anon = createApiClient({ baseUrl: `${server.url}/`, retry: 0 });
    await anon.sessions.messages(AI, { session_id: 's1' });
    expect(last().headers.authorization).toBeUndefined();
  });

  it('times out with ApiError code timeout', async () => {
    const slow = await startFakeServer(() => new Promise((r) => setTimeout(() => r({ json: responses.E1 }), 2_000)));
    const client = createApiClient({ baseUrl: slow.url, timeout: 100, retry: 0 });
    await expect(client.realtime.warmup(AI)).rejects.toMatchObject({ code: 'timeout' });
    await slow.close();
  });

  it('reports an unreachable server as network_error', async () => {
    const client = createApiClient({ baseUrl: 'http://127.0.0.1:9', retry: 0 });
    await expect(client.realtime.warmup(AI)).rejects.toMatchObject({ code: 'network_error' });
  });
});

describe('streams and pagination', () => {
  it('E3 stream yields text chunks until [DONE]', async () => {
    replies = [{ sse: ['data: {"delta":"You are "}\n\n', ': keep-alive\n\n', 'data: {"delta":"helpful."}\n\n', 'data: [DONE]\n\n'] }];
    const chunks: string[] = [];
    for await (const c of api.prompts.generateStream({ prompt_in: 'meta' })) chunks.push(c);
    expect(chunks).toEqual(['You are ', 'helpful.']);
    expect(JSON.parse(last().body)).toEqual({ prompt_in: 'meta', stream: true });
  });

  it('E10 stream yields validated chunks', async () => {
    const chunk = { id: 'c', object: 'chat.completion.chunk', created: 1, model: AI, choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] };
    replies = [{ sse: [`data: ${JSON.stringify(chunk)}\n\n`, 'data: [DONE]\n\n'] }];
    const got = [];
    for await (const c of api.chat.completionsStream({ model: AI, messages: [{ role: 'user', content: 'hi' }] })) got.push(c);
    expect(got).toEqual([chunk]);
  });

  it('a malformed stream event throws invalid_response', async () => {
    replies = [{ sse: ['data: {"nope":1}\n\n'] }];
    const run = async () => { for await (const _ of api.prompts.generateStream({})) void _; };
    await expect(run()).rejects.toMatchObject({ code: 'invalid_response' });
  });

  it('E19 and E20 iterators walk every page', async () => {
    const page = (n: number, pages: number, items: unknown[]) => ({ status: 200, json: { items, total: 3, page: n, size: 1, pages } });
    const m = (i: number) => ({ ...responses.E17, id: `${MSG.slice(0, -1)}${i}` });
    replies = [page(1, 3, [m(1)]), page(2, 3, [m(2)]), page(3, 3, [m(3)])];
    const ids = [];
    for await (const msg of api.sessions.allMessages(AI, { session_id: 's1', size: 1 })) ids.push(msg.id);
    expect(ids).toHaveLength(3);
    expect(server.requests.slice(-3).map((r) => r.query.get('page'))).toEqual(['1', '2', '3']);

    replies = [{ status: 200, json: { ...responses.E20, pages: 2 } }, { status: 200, json: { ...responses.E20, page: 2, pages: 2 } }];
    let count = 0;
    for await (const _ of api.datasets.allIntegrations(DS)) count++;
    expect(count).toBe(2);
  });
});
