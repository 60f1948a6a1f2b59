/** Result of reading a request body under a size cap. */
export type BodyRead = { ok: true; text: string } | { ok: false; reason: 'too_large' | 'unreadable' };

/**
 * Reads the request body as UTF-8 text, refusing more than `maxBytes`: a larger `Content-Length` is
 * refused before reading anything, and a body without one stops being read as soon as it passes
 * the cap, so an oversized upload is never held in memory.
 */
export async function readBoundedBody(request: Request, maxBytes: number): Promise<BodyRead> {
  const declared = request.headers.get('content-length');
  // Cancellations are not awaited: a body teed by `request.clone()` (e.g. in a hook) settles its
  // cancel only once every branch is cancelled, which would hold the answer forever.
  if (declared !== null && Number(declared) > maxBytes) {
    void request.body?.cancel().catch(() => {});
    return { ok: false, reason: 'too_large' };
  }
  if (!request.body) return { ok: true, text: '' };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        void reader.cancel().catch(() => {});
        return { ok: false, reason: 'too_large' };
      }
      chunks.push(value);
    }
  } catch {
    return { ok: false, reason: 'unreadable' };
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { ok: false, reason: 'unreadable' };
  }
}
