/**
 * The one reader of HTTP response bodies in kb-voice: the whole body as text within a signal (a
 * deadline), at most `maxBytes`, then parsed as JSON when it is JSON. The API client reads every
 * answer with it; the relay's upstream reads can use it too.
 */

/** Options of {@link readText} and {@link readBody}. */
export interface ReadBodyOptions {
  /** Stops the read (a deadline, the caller's abort): the read rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Largest body read, in bytes (UTF-8 as received); more rejects with {@link BodyTooLargeError}. Default: no limit. */
  maxBytes?: number;
}

/** A body longer than `maxBytes`. */
export class BodyTooLargeError extends RangeError {
  constructor(readonly maxBytes: number) {
    super(`The response body is larger than ${maxBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * The whole body as text (UTF-8; invalid bytes become U+FFFD). Rejects with the signal's reason when
 * it aborts, even if the server stalls mid-body (a body read alone would wait for the server), with
 * {@link BodyTooLargeError} beyond `maxBytes`, and with the stream's own error when the connection
 * is cut mid-body (undici's `TypeError: terminated`).
 */
export async function readText(response: Response, options: ReadBodyOptions = {}): Promise<string> {
  const { signal, maxBytes = Number.POSITIVE_INFINITY } = options;
  signal?.throwIfAborted();
  const body = response.body;
  if (!body) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  // The losing side of each race must not surface as an unhandled rejection.
  aborted.catch(() => undefined);
  try {
    for (;;) {
      const { value, done } = await Promise.race([reader.read(), aborted]);
      if (done) return text + decoder.decode();
      bytes += value.byteLength;
      if (bytes > maxBytes) throw new BodyTooLargeError(maxBytes);
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    // Releases the connection of a body left unread (aborted, too large).
    reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/** A body's text as a value: its JSON, the text itself when it is not JSON, `undefined` when empty. */
export function parseBody(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** {@link readText}, then {@link parseBody}. */
export async function readBody(response: Response, options: ReadBodyOptions = {}): Promise<unknown> {
  return parseBody(await readText(response, options));
}

/** An HTML page where JSON was expected (a proxy, gateway or login page in between), in words with its title; else `undefined`. */
export function htmlPage(body: unknown): string | undefined {
  if (typeof body !== 'string' || !/<html|<!doctype/i.test(body)) return undefined;
  const title = /<title[^>]*>([^<]{0,200})/i.exec(body)?.[1]?.trim();
  return `an HTML page${title ? ` ("${title}")` : ''}, not the service's JSON: a proxy, gateway or login page in between?`;
}

/** A body kept on an error: a string (a proxy's page can be large) is cut at 1024 characters. */
export const keptBody = (body: unknown): unknown => (typeof body === 'string' ? body.slice(0, 1024) : body);
