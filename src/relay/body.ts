import { RelayError } from './errors.js';
import { concat, type Incoming } from './message.js';

/** The rest of an oversized body is not read, so the connection cannot be reused: `Connection: close` tells the client. */
const tooLarge = (maxBytes: number) => new RelayError(413, `Request body exceeds ${maxBytes} bytes`, `request body over the ${maxBytes}-byte cap`, { connection: 'close' });

/**
 * Reads the request body as UTF-8 text, refusing more than `maxBytes` (413): a larger
 * `Content-Length` is refused before reading anything, and a body without one stops being read as
 * soon as it passes the cap, so an oversized upload is never held in memory. Not UTF-8: 400.
 */
export async function readBoundedBody(request: Incoming, maxBytes: number): Promise<string> {
  const { body } = request;
  if (typeof body === 'string') throw new RelayError(500, 'Relay misconfigured: the request body was consumed before the relay', body);
  const declared = request.header('content-length');
  const iterator = body?.[Symbol.asyncIterator]();
  // Cancellations are not awaited: a body teed by `request.clone()` (e.g. in a hook) settles its
  // cancel only once every branch is cancelled, which would hold the answer forever.
  const stop = () => void iterator?.return?.()?.catch(() => {});
  if (declared !== null && Number(declared) > maxBytes) {
    stop();
    throw tooLarge(maxBytes);
  }
  if (!iterator) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) {
      total += r.value.byteLength;
      if (total > maxBytes) {
        stop();
        throw tooLarge(maxBytes);
      }
      chunks.push(r.value);
    }
  } catch (error) {
    if (error instanceof RelayError) throw error;
    throw new RelayError(400, 'Unreadable request body', 'the request body could not be read (the caller went away?)', {}, error);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(concat(chunks, total));
  } catch (error) {
    throw new RelayError(400, 'Unreadable request body', 'the request body is not UTF-8', {}, error);
  }
}
