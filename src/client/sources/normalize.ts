/**
 * One place an answer came from, normalized from the stored message (CONTRACT.md, "Sources and
 * ratings"). The service types reference values as "any value": a value of another shape gives a
 * source with `raw` only (`title` empty), which UIs do not show.
 */
export interface Source {
  /** What to show; `''` when the value had no recognizable shape (then only `raw` is there). */
  title: string;
  url?: string;
  fileId?: string;
  datasetId?: string;
  /** 1-based page of a PDF. */
  page?: number;
  /** The passage used (the reference's `content`). */
  snippet?: string;
  score?: number;
  /** The value as the service sent it. */
  raw: unknown;
}

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v : undefined);

/** One reference value as a {@link Source}: the emulator's `{ title, url, dataset_id, file_id, content, score, page }`, or `raw` only. */
export function toSource(raw: unknown): Source {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const title = str(r.title) ?? str(r.name) ?? '';
  const source: Source = { title, raw };
  if (!title) return source;
  const fields = { url: str(r.url), fileId: str(r.file_id), datasetId: str(r.dataset_id), snippet: str(r.content) };
  for (const [key, value] of Object.entries(fields)) if (value) (source as unknown as Record<string, string>)[key] = value;
  if (Number.isInteger(r.page) && (r.page as number) > 0) source.page = r.page as number;
  if (Number.isFinite(r.score)) source.score = r.score as number;
  return source;
}

/**
 * The sources of a stored message (E17's `reference_list`) or of E18's `references`: an array
 * gives one source per item; another non-null value one `raw`-only source; nothing gives `[]`.
 */
export function toSources(list: unknown): Source[] {
  if (list === null || list === undefined) return [];
  return Array.isArray(list) ? list.map(toSource) : [{ title: '', raw: list }];
}
