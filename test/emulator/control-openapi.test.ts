import { describe, expect, it } from 'vitest';
import { endpoints } from '../../src/schemas/index.js';
import { FIXTURE_IDS } from 'kb-voice-emulator';
import { isLoopback } from '../../emulator/src/routes/control.js';
import { useEmulator } from '../helpers/emulator.js';

const t = useEmulator({ apiKey: 'test-key-123' });

describe('control routes (loopback only, no key)', () => {
  it('GET /_emulator/fixtures gives the seeded ids and the key', async () => {
    const res = await fetch(`${t.emu.url}/_emulator/fixtures`);
    expect(await res.json()).toEqual({ apiKey: 'test-key-123', robotId: FIXTURE_IDS.robotId, datasetId: FIXTURE_IDS.datasetId });
    expect(t.emu.fixtures).toEqual({ apiKey: 'test-key-123', robotId: FIXTURE_IDS.robotId, datasetId: FIXTURE_IDS.datasetId });
  });

  it('PUT /_emulator/faults sets faults for later requests and validates them', async () => {
    const set = await t.raw('PUT', '/_emulator/faults', { key: null, body: { latencyMs: 250 } });
    expect(await set.json()).toEqual({ warmup: 'ok', latencyMs: 250 });
    const started = Date.now();
    await t.api.realtime.usage(t.robotId);
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    await t.raw('PUT', '/_emulator/faults', { key: null, body: { latencyMs: 0 } });
    const bad = await t.raw('PUT', '/_emulator/faults', { key: null, body: { warmup: 'slow', latencyMs: -1, other: 1 } });
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([['body', 'warmup'], ['body', 'latencyMs'], ['body', 'other']]);
    expect((await t.raw('PUT', '/_emulator/faults', { key: null, body: '{' })).status).toBe(422);
  });

  it('POST /_emulator/reset restores the seeded state', async () => {
    await t.api.datasets.deleteFiles(t.datasetId, { file_ids: [FIXTURE_IDS.files.faqEn] });
    await t.api.sessions.delete(t.robotId, FIXTURE_IDS.sessions[0]);
    await t.raw('PUT', '/_emulator/faults', { key: null, body: { warmup: 'fail' } });
    const res = await t.raw('POST', '/_emulator/reset', { key: null });
    expect(await res.json()).toMatchObject({ robotId: FIXTURE_IDS.robotId });
    expect((await t.api.datasets.fileMetadata(t.datasetId, FIXTURE_IDS.files.faqEn)).status).toBe('learned');
    expect((await t.api.realtime.usage(t.robotId)).session_count).toBe(3);
    expect(t.emu.context.faults).toEqual({ warmup: 'ok', latencyMs: 0 });
    const { segments } = await t.api.realtime.audio(t.robotId, { session_id: FIXTURE_IDS.sessions[0] });
    expect((await fetch(segments[0]!.url)).status).toBe(200);
  });

  it('rejects non-loopback callers with 403', async () => {
    const env = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } }, outgoing: {} });
    const res = await t.emu.app.request('/_emulator/fixtures', {}, env('192.168.1.20'));
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ detail: 'The emulator control routes answer loopback callers only' });
    expect((await t.emu.app.request('/_emulator/reset', { method: 'POST' }, env('10.0.0.7'))).status).toBe(403);
    expect((await t.emu.app.request('/_emulator/fixtures', {}, env('127.0.0.1'))).status).toBe(200);
    expect(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'].every(isLoopback)).toBe(true);
    expect(['10.0.0.1', '::ffff:10.0.0.1', '::2', '', undefined, '1270.0.0.1'].some(isLoopback)).toBe(false);
  });
});

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document generated from the endpoint table', async () => {
    const doc = await (await fetch(`${t.emu.url}/openapi.json`)).json();
    expect(doc.openapi).toBe('3.1.0');
    const ops = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((p) => Object.values(p).map((o) => o.operationId));
    expect(ops.sort()).toEqual([...Object.keys(endpoints), 'OAI_CALLS', 'OAI_CLIENT_SECRETS'].sort());
    // The OpenAI protocol's two endpoints, with their non-JSON bodies.
    expect(Object.keys(doc.paths['/v1/realtime/calls'].post.requestBody.content)).toEqual(['application/sdp', 'multipart/form-data']);
    expect(doc.paths['/v1/realtime/client_secrets'].post.responses['200'].content['application/json'].schema.required).toEqual(['value', 'expires_at', 'session']);
    const e20 = doc.paths['/v1/datasets/{dataset_id}/integrations'].get;
    const size = e20.parameters.find((p: { name: string }) => p.name === 'size');
    expect(size).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } });
    expect(e20.parameters.find((p: { name: string }) => p.name === 'dataset_id')).toMatchObject({ in: 'path', required: true, schema: { format: 'uuid' } });
    const e5 = doc.paths['/v1/datasets/{dataset_id}/links'].post;
    expect(e5.requestBody.content['application/json'].schema.properties.max_images.default).toBe(10);
    expect(e5.responses['422'].content['application/json'].schema.required).toEqual(['detail']);
    expect(e5.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/v1/{ai_id}/sessions/{session_id}'].delete.responses['204']).toBeDefined();
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
  });
});
