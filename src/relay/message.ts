/**
 * The relay's internal request and reply: the one shape the pipeline works on, whatever runtime
 * carries it. Adapters convert at the edge (web.ts: `Request`/`Response`; node/node.ts:
 * `IncomingMessage`/`ServerResponse`), upstream clients (web.ts: a `fetch`; node-fetch.ts: `node:http`)
 * return the same upstream reply. Bodies are one type: `AsyncIterable<Uint8Array>`.
 */
export type Body = AsyncIterable<Uint8Array>;

/** A request as the relay sees it. */
export interface Incoming {
  method: string;
  /** The request target as sent (path and query, still percent-encoded). */
  target: string;
  /** The relay's own origin as this request names it (`http://host:port`), for the same-origin check. */
  origin: string;
  /** A request header (lower-case name); several values joined with `, `. */
  header(name: string): string | null;
  /** The body (null: none); or, as a string, why the adapter cannot hand it over. */
  body: Body | null | string;
  /** The caller going away calls `listener`; returns the unsubscribe. */
  onClose(listener: () => void): () => void;
  /** The request as a web `Request`, for the hooks (`authorize`, `rateLimit`); built on first use. */
  request(): Request;
}

/** A reply to the caller: `body` as bytes (sent with its length) or a stream. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | Body | null;
}

/** Response headers as an upstream client returns them (web `Headers` fit). */
export interface HeaderList {
  get(name: string): string | null;
  forEach(callback: (value: string, name: string) => void): void;
}

/** An upstream answer as an upstream client returns it. */
export interface UpstreamReply {
  status: number;
  headers: HeaderList;
  /**
   * Decoded body (null: none): bytes when it had fully arrived with the headers, else a stream;
   * iterating it to the end or breaking out releases the connection.
   */
  body: Uint8Array | Body | null;
  /** Stops reading and drops the connection. */
  cancel(): void;
}

/** One upstream request: the full URL, record headers, an optional body. */
export interface UpstreamRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | undefined;
}

/*
 * The per-call objects of the upstream path (request, reply, answer) are class instances, not
 * object literals: V8 may "pretenure" an object literal's allocation site (allocate its objects in
 * the old generation once most of them have outlived a scavenge). A pretenured reply dies with its
 * request but stays until the next full collection, and keeps every young object of its call (the
 * ClientRequest, its parser's output, the relay's closures) alive through scavenges, which then
 * promote them: ~3.8 KB a request under load with an 8 MB young generation, 0.6 KB as instances
 * (`--trace-gc-nvp`, `--trace-pretenuring-statistics`; docs/relay.md "What a request costs").
 */

/** An {@link UpstreamRequest} (an instance: see above). */
export class OutgoingRequest implements UpstreamRequest {
  constructor(
    readonly url: string,
    readonly method: string,
    readonly headers: Record<string, string>,
    readonly body: string | Uint8Array | undefined,
  ) {}
}

/** An {@link UpstreamReply} as an upstream client makes it (an instance: see above). */
export class ReceivedReply implements UpstreamReply {
  constructor(
    readonly status: number,
    readonly headers: HeaderList,
    readonly body: Uint8Array | Body | null,
    readonly cancel: () => void,
  ) {}
}

/**
 * How the relay reaches the upstream. `abort` is filled in by the upstream client: calling it ends the
 * request (before or during the body). Content codings are decoded as fetch does.
 */
export type UpstreamClient = (request: UpstreamRequest, control: { abort?: () => void }) => Promise<UpstreamReply>;

/**
 * Where a relay made by `createRelay` keeps its own request handler, for runtime adapters (node/node.ts)
 * that hand requests over without web objects. A registered symbol: two copies of the module agree.
 */
export const RELAY_HANDLER: unique symbol = Symbol.for('kb-voice.relay.handler') as never;
/** What `RELAY_HANDLER` holds: the relay's stages, from request to reply. */
export type RelayHandler = (request: Incoming) => Promise<Reply>;

/** Typed structurally: a Node consumer's types (no DOM lib) have `TextEncoder` as a value only. */
export const encoder: { encode(input?: string): Uint8Array } = new TextEncoder();

/** Chunks joined into one array. */
export function concat(chunks: readonly Uint8Array[], size = chunks.reduce((n, c) => n + c.byteLength, 0)): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

type HeaderRecord = Readonly<Record<string, string>> | undefined;

/**
 * Header records merged into a new one, later records winning. Not `{ ...a, ...b }` on the hot
 * path: V8 gives a spread copy a hidden class outside its transition tree, so every header added to
 * it afterwards builds a new hidden class (2.2 µs instead of 0.13 µs for a reply's headers, the
 * largest single cost of the relay's own code in bench 3's profile). For plain records only
 * (`for…in` also walks inherited enumerable keys).
 */
export function mergeHeaders(a: HeaderRecord, b?: HeaderRecord, c?: HeaderRecord): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in a) out[k] = a[k]!;
  for (const k in b) out[k] = b[k]!;
  for (const k in c) out[k] = c[k]!;
  return out;
}
