import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { endpoints, type IntegrationRule } from 'kb-voice/schemas';
import { parseTime } from '../time.js';
import { HttpError } from '../http/errors.js';
import { currentFile, datasetOr404, publicFile, publicLink } from '../http/lookup.js';
import { comparator, pageOf } from '../http/paging.js';
import { route } from '../http/route.js';
import type { ServerContext } from '../http/server-context.js';
import type { IntegrationRecord, LinkRecord } from '../store.js';

/** Link kinds whose entries must be web addresses. */
const WEB_KINDS = new Set(['website', 'sitemap', 'gitbook']);

const time = (v: string | null | undefined) => (v ? parseTime(v) : null);
const INTEGRATION_ORDER = {
  created_at: (r: IntegrationRecord) => time(r.created_at),
  updated_at: (r: IntegrationRecord) => time(r.updated_at),
  last_synced_at: (r: IntegrationRecord) => time(r.last_synced_at),
  name: (r: IntegrationRecord) => r.name,
  type: (r: IntegrationRecord) => r.type,
  file_count: (r: IntegrationRecord) => r.file_count,
};

/** E4, E5, E7, E8, E16, E20. */
export function registerDatasetRoutes(app: Hono, sc: ServerContext): void {
  // E4: restarts learning of the listed files; their status then moves waiting → learning → learned.
  route(app, sc, endpoints.E4, ({ params, body }) => {
    const dataset = datasetOr404(sc.store, params.dataset_id);
    const missing = body.file_id_list.filter((id) => sc.store.files.get(id)?.dataset_id !== dataset.id);
    if (missing.length > 0) throw new HttpError(404, `File not found in dataset: ${missing.join(', ')}`);
    const now = Date.now();
    const files = [...new Set(body.file_id_list)].map((id) => {
      const file = sc.store.files.get(id)!;
      const metadata = { ...file.metadata, ...(body.learn_type !== undefined ? { learn_type: body.learn_type } : {}), ...(body.embedding !== undefined ? { embedding: body.embedding } : {}) };
      const updated = sc.store.files.patch(id, { status: 'waiting', learn_started_at: now, updated_at: new Date(now).toISOString(), metadata })!;
      return publicFile(updated);
    });
    return { json: { success: true, files } };
  });

  // E5: records the links under their kind; they learn over time like files.
  route(app, sc, endpoints.E5, ({ params, query, body }) => {
    const dataset = datasetOr404(sc.store, params.dataset_id);
    if (WEB_KINDS.has(query.links_type)) {
      const bad = body.links.flatMap((link, i) => (/^https?:\/\/[^\s/]+/i.test(link) && URL.canParse(link) ? [] : [i]));
      if (bad.length > 0) {
        throw new HttpError(422, bad.map((i) => ({ loc: ['body', 'links', i], msg: `Input should be a valid URL for links_type ${query.links_type}`, type: 'url_parsing' })));
      }
    }
    const now = Date.now();
    const links = body.links.map((url) => {
      const record: LinkRecord & { learn_started_at: number } = {
        id: randomUUID(), dataset_id: dataset.id, url, type: query.links_type, spa: body.spa, max_images: body.max_images,
        status: 'waiting', created_at: new Date(now).toISOString(), learn_started_at: now,
      };
      sc.store.links.put(record);
      return publicLink(record, sc.fileLearningMs);
    });
    return { json: { success: true, links } };
  });

  // E7: removes the listed files of the dataset; ids it does not hold are skipped (not in `deleted`).
  route(app, sc, endpoints.E7, ({ params, body }) => {
    const dataset = datasetOr404(sc.store, params.dataset_id);
    const deleted = [...new Set(body.file_ids)].filter((id) => sc.store.files.get(id)?.dataset_id === dataset.id && sc.store.files.delete(id));
    return { json: { success: true, deleted } };
  });

  // E8: shallow-merges the metadata; a member set to null is removed.
  route(app, sc, endpoints.E8, ({ params, body }) => {
    const dataset = datasetOr404(sc.store, params.dataset_id);
    const metadata: Record<string, unknown> = { ...dataset.metadata };
    for (const [k, v] of Object.entries(body.metadata)) {
      if (v === null) delete metadata[k];
      else metadata[k] = v;
    }
    sc.store.datasets.patch(dataset.id, { metadata });
    return { json: { dataset_id: dataset.id, metadata } };
  });

  route(app, sc, endpoints.E16, ({ params }) => {
    const dataset = datasetOr404(sc.store, params.dataset_id);
    const file = sc.store.files.get(params.file_id);
    if (!file || file.dataset_id !== dataset.id) throw new HttpError(404, 'File not found');
    return { json: publicFile(currentFile(sc.store, file, sc.fileLearningMs)) };
  });

  route(app, sc, endpoints.E20, ({ params, query }) => {
    const dataset = datasetOr404(sc.store, params.dataset_id);
    const types = query.type && query.type.length > 0 ? new Set<string>(query.type) : null;
    const sort = comparator(query.order_by, INTEGRATION_ORDER, 'created_at');
    const items: IntegrationRule[] = sc.store.integrations
      .find((r) => r.dataset_id === dataset.id && (!types || (r.type != null && types.has(r.type))))
      .sort((a, b) => sort(a, b) || a.id.localeCompare(b.id))
      .map(({ dataset_id: _d, ...rule }) => rule);
    return { json: pageOf(items, query.page, query.size) };
  });
}
