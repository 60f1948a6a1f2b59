import { RelayError } from './errors.js';

/** The rest of an oversized body is not read, so the connection cannot be reused: `Connection: close` tells the client. */
const tooLarge = (maxBytes: number) => new RelayError(413, `Request body exceeds ${maxBytes} bytes`, `request body over the ${maxBytes}-byte cap`, { connection: 'close' });

/**
 * Reads the request body as UTF-8 text, refusing more than `maxBytes` (413): a larger
 * `Content-Length` is refused before reading anything, and a body without one stops being read as
 * soon as it passes the cap, so an oversized upload is never held in memory. Not UTF-8: 400.
 */
export async function readBoundedBody(request: Request, maxBytes: number): Promise<string> {
  const declared = request.headers.get('content-length');
  // Cancellations are not awaited: a body teed by `request.clone()` (e.g. in a hook) settles its
  // cancel only once every branch is cancelled, which would hold the answer forever.
  if (declared !== null && Number(declared) > maxBytes) {
    void request.body?.cancel().catch(() => {});
    throw tooLarge(maxBytes);
  }
  if (!request.body) return '';
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
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof RelayError) throw error;
    throw new RelayError(400, 'Unreadable request body', 'the request body could not be read (the caller went away?)', {}, error);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    throw new RelayError(400, 'Unreadable request body', 'the request body is not UTF-8', {}, error);
  }
}
