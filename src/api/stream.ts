import * as z from 'zod/mini';
import type { Clock } from '../clock.js';
import type { Endpoint } from '../schemas/index.js';
import { parseBody, readText } from './body.js';
import { ApiError } from './errors.js';
import type { Opened } from './http.js';
import { readSseData } from './sse.js';

/**
 * How one streaming endpoint's answer becomes its chunks, whatever form the service chose (the spec
 * does not show E3's): each piece validated by `chunk`; a whole JSON answer (a service that ignored
 * `stream: true`) validated by the endpoint's response schema and turned into chunks by `whole`; a
 * `text/plain` stream, where the endpoint streams text, made into chunks by `text`.
 */
export interface StreamShape<T> {
  chunk: z.core.$ZodType<T>;
  whole: (value: never) => T[];
  text?: (piece: string) => T;
}

/** The stream formats read, by Content-Type (parameters and case ignored). */
export const STREAM_TYPES = {
  sse: ['text/event-stream'],
  ndjson: ['application/x-ndjson', 'application/ndjson', 'application/jsonl', 'application/x-jsonlines', 'application/jsonlines'],
  json: ['application/json'],
  text: ['text/plain'],
} as const;

/** The body went silent for longer than the call's timeout. */
class Silence extends Error {}

/** `body` with a limit on the silence before each piece: a read waiting longer fails with {@link Silence}. */
function guarded(body: ReadableStream<Uint8Array>, idleMs: number, clock: Clock): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: unknown;
      const silent = new Promise<never>((_, reject) => {
        timer = clock.setTimeout(() => reject(new Silence(`silent for more than ${idleMs} ms`)), idleMs);
      });
      try {
        const { value, done } = await Promise.race([reader.read(), silent]);
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        reader.cancel().catch(() => undefined);
        throw error;
      } finally {
        clock.clearTimeout(timer);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** Each line of a text stream (UTF-8), the last one too when it has no newline. */
async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffer = '';
  for await (const text of texts(body)) {
    buffer += text;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      yield buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
    }
  }
  if (buffer) yield buffer;
}

/** The stream decoded as UTF-8 text, piece by piece (a character split across pieces is kept whole). */
async function* texts(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      if (text) yield text;
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function parsePiece<T>(what: string, status: number, shape: StreamShape<T>, data: string): T {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch (cause) {
    throw new ApiError('invalid_response', `${what}: a stream event is not JSON`, { status, body: data, cause });
  }
  const parsed = z.safeParse(shape.chunk, json);
  if (!parsed.success) throw new ApiError('invalid_response', `${what}: a stream event does not match the schema`, { status, body: json, cause: parsed.error });
  return parsed.data;
}

/**
 * The chunks of a streaming answer, read by its Content-Type: Server-Sent Events (`data:` payloads
 * until `[DONE]`), NDJSON (a JSON value per line), one JSON answer (a service that does not stream),
 * or plain text where the endpoint streams text. Anything else is `invalid_response`; silence longer
 * than the call's timeout is `timeout`; a connection cut mid-stream is `invalid_response` with the
 * cause.
 */
export async function* readStream<T>(opened: Opened, endpoint: Endpoint, shape: StreamShape<T>): AsyncGenerator<T> {
  const { response, idleMs, what, clock } = opened;
  const { status } = response;
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const is = (kind: keyof typeof STREAM_TYPES) => (STREAM_TYPES[kind] as readonly string[]).includes(type);
  const known = is('sse') || is('ndjson') || is('json') || (is('text') && shape.text);
  if (!known) {
    response.body?.cancel().catch(() => undefined);
    throw new ApiError('invalid_response', `${what}: the stream's Content-Type "${type || 'none'}" is not one kb-voice reads (${[...STREAM_TYPES.sse, STREAM_TYPES.ndjson[0], ...STREAM_TYPES.json, ...(shape.text ? STREAM_TYPES.text : [])].join(', ')})`, { status });
  }
  if (!response.body) throw new ApiError('invalid_response', `${what}: the stream has no body`, { status });
  const body = guarded(response.body, idleMs, clock);
  try {
    if (is('json')) {
      const value = parseBody(await readText(new Response(body)));
      const parsed = z.safeParse(endpoint.response, value);
      if (!parsed.success) throw new ApiError('invalid_response', `${what}: the answer (JSON, not a stream) does not match the schema`, { status, body: value, cause: parsed.error });
      yield* shape.whole(parsed.data as never);
    } else if (is('sse')) {
      for await (const data of readSseData(body)) yield parsePiece(what, status, shape, data);
    } else if (is('ndjson')) {
      for await (const line of lines(body)) if (line.trim()) yield parsePiece(what, status, shape, line);
    } else {
      for await (const text of texts(body)) yield shape.text!(text);
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (error instanceof Silence) throw new ApiError('timeout', `${what}: the stream was ${error.message}`, { status, cause: error });
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError('invalid_response', `${what}: the connection broke while reading the stream`, { status, cause: error });
  }
}
