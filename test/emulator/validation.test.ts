import { describe, expect, it } from 'vitest';
import { endpoints, fillPath, HTTPValidationError, type Endpoint } from '../../src/schemas/index.js';
import { useEmulator, startTestEmulator } from '../helpers/emulator.js';
import { nextCall } from '../helpers/next-call.js';

const t = useEmulator();

const all = Object.values(endpoints) as Endpoint[];
/** Path of an endpoint with the seeded ids (every parameter gets a plausible value). */
const pathOf = (e: Endpoint) =>
  fillPath(e.path, { ai_id: t.robotId, dataset_id: t.datasetId, session_id: 'x', message_id: 'x', file_id: 'x' });
const isStrict = (schema: unknown) => (schema as { _zod: { def: { catchall?: { _zod: { def: { type: string } } } } } })._zod.def.catchall?._zod.def.type === 'never';

describe('every endpoint of the table', () => {
  it.each(all.filter((e) => e.auth).map((e) => [e.id, e]))('%s answers 401 {detail} without the key, before validating', async (_, e) => {
    const res = await t.raw(e.method, pathOf(e), { key: null, body: e.body ? '{' : undefined });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toEqual({ detail: 'Not authenticated' });
  });

  it.each(all.filter((e) => e.body && !e.contentType).map((e) => [e.id, e]))('%s answers 422 json_invalid for a malformed JSON body', async (_, e) => {
    const res = await t.raw(e.method, pathOf(e), { body: '{"a": tru' });
    expect(res.status).toBe(422);
    const body = HTTPValidationError.parse(await res.json());
    expect(body.detail).toContainEqual({ loc: ['body', 9], msg: 'JSON decode error', type: 'json_invalid' });
  });

  it.each(all.filter((e) => e.body && isStrict(e.body)).map((e) => [e.id, e]))('%s rejects unknown body fields (extra_forbidden)', async (_, e) => {
    const res = await t.raw(e.method, pathOf(e), { body: { not_a_field: 1 } });
    expect(res.status).toBe(422);
    const { detail } = HTTPValidationError.parse(await res.json());
    expect(detail).toContainEqual({ loc: ['body', 'not_a_field'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
  });

  it.each(all.filter((e) => e.query).map((e) => [e.id, e]))('%s rejects unknown query parameters', async (_, e) => {
    const res = await t.raw(e.method, pathOf(e), { query: 'not_a_param=1', body: e.body ? {} : undefined });
    expect(res.status).toBe(422);
    const { detail } = HTTPValidationError.parse(await res.json());
    expect(detail).toContainEqual({ loc: ['query', 'not_a_param'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
  });

  it.each(all.filter((e) => e.body && !e.contentType && e.bodyRequired !== false).map((e) => [e.id, e]))('%s reports a missing body at loc [body]', async (_, e) => {
    const res = await t.raw(e.method, pathOf(e));
    expect(res.status).toBe(422);
    expect((await res.json()).detail).toContainEqual({ loc: ['body'], msg: 'Field required', type: 'missing' });
  });

  it.each(all.filter((e) => e.contentType).map((e) => [e.id, e]))('%s (its own media type) answers 415 for JSON and 422 at loc [body] for an empty body', async (_, e) => {
    const json = await t.raw(e.method, pathOf(e), { body: {} });
    expect(json.status).toBe(415);
    expect(await json.json()).toEqual({ detail: `Content-Type must be ${e.contentType}` });
    const empty = await fetch(`${t.emu.url}${pathOf(e)}`, { method: e.method, headers: { authorization: `Bearer ${t.emu.apiKey}`, 'content-type': e.contentType! }, body: '' });
    expect(empty.status).toBe(422);
    expect((await empty.json()).detail[0].loc).toEqual(['body']);
  });

  it('unknown routes answer 404 {detail}', async () => {
    const res = await t.raw('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Not Found' });
  });
});

describe('closing', () => {
  it('close() finishes while a warmup hangs, and removes the audio folder', async () => {
    const own = await startTestEmulator();
    const { existsSync } = await import('node:fs');
    const dir = own.emu.context.audioDir;
    expect(existsSync(dir)).toBe(true);
    await own.raw('PUT', '/_emulator/faults', { key: null, body: { warmup: 'hang' } });
    const reached = nextCall(own.emu.context.agents, 'warmup');
    const hanging = own.raw('POST', `/v1/robots/${own.robotId}/realtime/warmup`).then((r) => r.status, () => 'closed');
    await reached;
    await own.emu.close();
    expect(['closed', 200]).toContain(await hanging);
    expect(existsSync(dir)).toBe(false);
    await own.emu.close(); // idempotent
  });
});
