import { afterEach, describe, expect, it, vi } from 'vitest';
import { FIXTURE_IDS } from 'kb-voice-emulator';
import { useEmulator } from '../helpers/emulator.js';

const t = useEmulator({ fileLearningMs: 400 });
afterEach(() => {
  vi.useRealTimers();
});

const F = FIXTURE_IDS.files;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const locs = async (res: Response) => ((await res.json()) as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc);

describe('E16 and E4: file metadata and learning over time', () => {
  it('E16 reads a file without its stored text', async () => {
    const file = await t.api.datasets.fileMetadata(t.datasetId, F.manualPdf);
    expect(file).toMatchObject({ id: F.manualPdf, dataset_id: t.datasetId, name: 'aozora-ak3-quick-start.pdf', type: 'pdf', status: 'learned' });
    expect(file.size).toBeGreaterThan(500);
    expect(file).not.toHaveProperty('content');
    expect(file).not.toHaveProperty('pdf');
    expect((await t.raw('GET', `/v1/datasets/${t.datasetId}/files/${UNKNOWN}/metadata`)).status).toBe(404);
    expect((await t.raw('GET', `/v1/datasets/${UNKNOWN}/files/${F.faqEn}/metadata`)).status).toBe(404);
    expect((await t.raw('GET', `/v1/datasets/${t.datasetId}/files/${F.faqEn}/metadata`, { key: null })).status).toBe(401);
  });

  it('E4 restarts learning: waiting, then learning, then learned (not instantly)', async () => {
    // Learning moves on with the clock (the first quarter of fileLearningMs waiting, then learning):
    // the test moves the clock instead of polling for transient states.
    vi.useFakeTimers({ toFake: ['Date'] });
    const started = Date.now();
    const out = await t.api.datasets.refreshFiles(t.datasetId, { file_id_list: [F.faqEn, F.faqJa], learn_type: 2, embedding: true });
    expect(out.success).toBe(true);
    expect(out.files!.map((f) => [f.id, f.status])).toEqual([[F.faqEn, 'waiting'], [F.faqJa, 'waiting']]);
    expect(out.files![0]!.metadata).toMatchObject({ learn_type: 2, embedding: true });
    const statusAt = async (ms: number) => {
      vi.setSystemTime(started + ms);
      return (await t.api.datasets.fileMetadata(t.datasetId, F.faqEn)).status;
    };
    // fileLearningMs is 400 here: waiting below 100 ms, learning below 400 ms, then learned.
    expect(await statusAt(99)).toBe('waiting');
    expect(await statusAt(100)).toBe('learning');
    expect(await statusAt(399)).toBe('learning');
    expect(await statusAt(400)).toBe('learned');
    // Learned for good: the stored status no longer depends on the clock.
    expect(await statusAt(0)).toBe('learned');
    // The other files were not touched.
    expect((await t.api.datasets.fileMetadata(t.datasetId, F.support)).status).toBe('learned');
  });

  it('E4 rejects unknown files (404) and bad bodies (422)', async () => {
    const path = `/v1/datasets/${t.datasetId}/files/refresh_list`;
    expect((await t.raw('PUT', path, { body: { file_id_list: [UNKNOWN] } })).status).toBe(404);
    expect(await locs(await t.raw('PUT', path, { body: { file_id_list: ['x'], learn_type: 'fast' } }))).toEqual([['body', 'file_id_list', 0], ['body', 'learn_type']]);
    expect(await locs(await t.raw('PUT', path, {}))).toEqual([['body']]);
    expect((await t.raw('PUT', path, { body: { file_id_list: [] }, key: null })).status).toBe(401);
  });
});

describe('E5 links', () => {
  it('records links under their kind with spa/max_images defaults', async () => {
    const out = await t.api.datasets.addLinks(t.datasetId, { links: ['https://hikari-home.example/support', 'https://hikari-home.example/faq'] });
    expect(out.links).toHaveLength(2);
    expect(out.links![0]).toMatchObject({ url: 'https://hikari-home.example/support', type: 'website', spa: false, max_images: 10, status: 'waiting' });
    const sitemap = await t.api.datasets.addLinks(t.datasetId, { links: ['https://hikari-home.example/sitemap.xml'], spa: true, max_images: 0 }, { links_type: 'sitemap' });
    expect(sitemap.links![0]).toMatchObject({ type: 'sitemap', spa: true, max_images: 0 });
    const faq = await t.api.datasets.addLinks(t.datasetId, { links: ['What is the warranty? Two years.'] }, { links_type: 'faq' });
    expect(faq.links![0]!.type).toBe('faq');
    const stored = t.emu.context.store.links.find((l) => l.dataset_id === t.datasetId);
    expect(stored.map((l) => l.type).sort()).toEqual(['faq', 'sitemap', 'website', 'website', 'website']);
  });

  it('rejects unknown kinds, non-URLs for web kinds and bad values', async () => {
    const path = `/v1/datasets/${t.datasetId}/links`;
    expect(await locs(await t.raw('POST', path, { query: 'links_type=video', body: { links: ['https://a.example'] } }))).toEqual([['query', 'links_type']]);
    const notUrl = await t.raw('POST', path, { body: { links: ['https://ok.example', 'not a url'] } });
    expect(notUrl.status).toBe(422);
    expect((await notUrl.json()).detail).toEqual([{ loc: ['body', 'links', 1], msg: 'Input should be a valid URL for links_type website', type: 'url_parsing' }]);
    expect(await locs(await t.raw('POST', path, { body: { links: 'https://a.example', spa: 'yes', max_images: -1 } }))).toEqual([
      ['body', 'links'], ['body', 'spa'], ['body', 'max_images'],
    ]);
    expect((await t.raw('POST', `/v1/datasets/${UNKNOWN}/links`, { body: { links: [] } })).status).toBe(404);
  });
});

describe('E7 and E8', () => {
  it('E7 deletes the dataset files it holds and reports them', async () => {
    const out = await t.api.datasets.deleteFiles(t.datasetId, { file_ids: [F.faqJa, UNKNOWN] });
    expect(out).toEqual({ success: true, deleted: [F.faqJa] });
    expect((await t.raw('GET', `/v1/datasets/${t.datasetId}/files/${F.faqJa}/metadata`)).status).toBe(404);
    // Knowledge answers no longer come from the deleted file.
    const chat = await t.api.chat.completions({ model: t.robotId, messages: [{ role: 'user', content: '交換用フィルターの価格は？' }] });
    expect(chat.choices[0]!.message.content).not.toContain('980円');
    expect(await locs(await t.raw('DELETE', `/v1/datasets/${t.datasetId}/files`, { body: { file_ids: [1] } }))).toEqual([['body', 'file_ids', 0]]);
    expect((await t.raw('DELETE', `/v1/datasets/${t.datasetId}/files`, { body: { file_ids: [] }, key: null })).status).toBe(401);
  });

  it('E8 merges configuration metadata (null removes a member)', async () => {
    const out = await t.api.datasets.updateConfigs(t.datasetId, { metadata: { chunk_size: 1024, top_k: 5, language: null } });
    expect(out).toEqual({ dataset_id: t.datasetId, metadata: { chunk_size: 1024, top_k: 5 } });
    expect(t.emu.context.store.datasets.get(t.datasetId)!.metadata).toEqual({ chunk_size: 1024, top_k: 5 });
    expect(await locs(await t.raw('POST', `/v1/datasets/${t.datasetId}/configs`, { body: { metadata: [1] } }))).toEqual([['body', 'metadata']]);
    expect(await locs(await t.raw('POST', `/v1/datasets/${t.datasetId}/configs`, { body: {} }))).toEqual([['body', 'metadata']]);
    expect((await t.raw('POST', `/v1/datasets/${UNKNOWN}/configs`, { body: { metadata: {} } })).status).toBe(404);
  });
});

describe('E20 integrations', () => {
  it('pages with the envelope (default page 1, size 50)', async () => {
    const all = await t.api.datasets.integrations(t.datasetId);
    expect(all).toMatchObject({ total: 5, page: 1, size: 50, pages: 1 });
    expect(all.items[0]).toMatchObject({ type: 'notion', created_by: { email: 'admin@hikari-home.example' } });
    expect(all.items.some((r) => r.file_list_sync_status === 'waiting')).toBe(true);
    const p = await t.api.datasets.integrations(t.datasetId, { size: 2, page: 3 });
    expect(p).toMatchObject({ total: 5, page: 3, size: 2, pages: 3 });
    expect(p.items).toHaveLength(1);
    const ids = [];
    for await (const r of t.api.datasets.allIntegrations(t.datasetId, { size: 2 })) ids.push(r.id);
    expect(ids).toEqual(all.items.map((r) => r.id));
  });

  it('filters by type (repeated) and orders by order_by', async () => {
    const some = await t.api.datasets.integrations(t.datasetId, { type: ['notion', 'lark'] });
    expect(some.items.map((r) => r.type).sort()).toEqual(['lark', 'notion']);
    expect(some.total).toBe(2);
    const byName = await t.api.datasets.integrations(t.datasetId, { order_by: 'name' });
    const names = byName.items.map((r) => r.name!);
    expect(names).toEqual([...names].sort());
    const byFiles = await t.api.datasets.integrations(t.datasetId, { order_by: '-file_count' });
    expect(byFiles.items.map((r) => r.file_count)).toEqual([31, 12, 7, 4, 2]);
  });

  it('checks bounds, types, the uuid path and the key', async () => {
    const path = `/v1/datasets/${t.datasetId}/integrations`;
    expect(await locs(await t.raw('GET', path, { query: 'page=0&size=1001&type=slack' }))).toEqual([['query', 'type', 0], ['query', 'page'], ['query', 'size']]);
    expect(await locs(await t.raw('GET', path, { query: 'order_by=secret' }))).toEqual([['query', 'order_by']]);
    expect(await locs(await t.raw('GET', '/v1/datasets/not-a-uuid/integrations'))).toEqual([['path', 'dataset_id']]);
    expect((await t.raw('GET', path, { query: 'size=1000' })).status).toBe(200);
    expect((await t.raw('GET', path, { key: null })).status).toBe(401);
    expect((await t.raw('GET', `/v1/datasets/${UNKNOWN}/integrations`)).status).toBe(404);
  });
});
