import { isAnswer, type Next, type Outcome, type Stage } from '../compose.js';
import type { RelayContext } from '../context.js';
import { RelayError } from '../errors.js';
import type { Reply } from '../message.js';
import type { RelayStage } from '../types.js';

/** A header name as HTTP allows it (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A header value Node and `Headers` both send: no CR, LF or NUL, Latin-1 only. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * An app's stages (`stages.before`, `stages.afterAuthorize`), each held to its contract: it returns
 * what `next()` resolved to (or throws), and the headers it adds to `ctx.headers` are valid. A stage
 * that hands back anything else (`{ status: 204 }`, `undefined`) or adds a header with CR/LF, a
 * character beyond Latin-1 or an invalid name would reset the socket on Node and reject
 * `relay.fetch`: it is answered 500 `{ detail }` instead, and the one `error` log line names the
 * stage (`stages.before[0] (trace)`). The invalid headers are dropped from the answer.
 */
export function appStages(list: unknown, where: 'before' | 'afterAuthorize'): Stage[] {
  if (list === undefined) return [];
  if (!Array.isArray(list) || !list.every((f) => typeof f === 'function')) throw new TypeError(`Relay option stages.${where} must be an array of stage functions`);
  return (list as RelayStage[]).map((stage, i) => held(stage, `stages.${where}[${i}]${stage.name ? ` (${stage.name})` : ''}`));
}

function held(stage: RelayStage, name: string): Stage {
  return (ctx, next) => {
    let inner: Outcome | undefined;
    const own: Next = () => next().then((out) => (inner = out));
    let result: Promise<unknown>;
    try {
      result = Promise.resolve(stage(ctx, own as () => Promise<Reply>));
    } catch (error) {
      result = Promise.reject(error);
    }
    return result.then(
      (out) => {
        checkHeaders(ctx, name, inner);
        if (inner === undefined || out !== inner) {
          discard(inner);
          throw new RelayError(500, 'Internal relay error', `app stage ${name} returned ${describe(out)}, not what next() resolved to`);
        }
        return inner;
      },
      (error: unknown) => {
        checkHeaders(ctx, name, inner);
        throw error;
      },
    );
  };
}

/** Drops the headers a stage got wrong and fails the request, naming the first. */
function checkHeaders(ctx: RelayContext, name: string, inner: Outcome | undefined): void {
  let bad: string | undefined;
  for (const [key, value] of Object.entries(ctx.headers)) {
    if (TOKEN.test(key) && typeof value === 'string' && FIELD_VALUE.test(value)) continue;
    bad ??= TOKEN.test(key) ? `a value of header ${key} that HTTP cannot carry (CR, LF, NUL or beyond Latin-1)` : `an invalid header name ${JSON.stringify(key.slice(0, 40))}`;
    delete ctx.headers[key];
  }
  if (bad === undefined) return;
  discard(inner);
  throw new RelayError(500, 'Internal relay error', `app stage ${name} set ${bad}`);
}

/** An answer the caller will not get: its stream is closed so the upstream connection is freed. */
function discard(out: Outcome | undefined): void {
  if (!out) return;
  if (isAnswer(out)) out.cancel();
  else if (out.body && !(out.body instanceof Uint8Array)) void out.body[Symbol.asyncIterator]().return?.();
}

function describe(out: unknown): string {
  if (out === undefined || out === null) return String(out);
  if (typeof out !== 'object') return typeof out;
  try {
    return JSON.stringify(out).slice(0, 80);
  } catch {
    return 'an object';
  }
}
