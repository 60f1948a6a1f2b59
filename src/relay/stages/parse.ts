import { parseRequest, queryFromUrl, type Endpoint } from '../../schemas/index.js';
import { readBoundedBody } from '../body.js';
import type { Next, Outcome, Stage } from '../compose.js';
import type { RelayContext } from '../context.js';
import { boundedDetail, describeDetail, RelayError } from '../errors.js';
import type { Input, RouteMatch } from '../route-types.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * The validated input of a request with no body and no query string depends on its match alone
 * (route and path parameters; query defaults are constants), so it is remembered per match, frozen:
 * the router hands the same match to every request for a path, and `parseRequest` runs once for it.
 * Weak: a match the router forgot takes its input with it. Refusals are never remembered.
 */
const remembered = new WeakMap<RouteMatch, Input>();

/**
 * Path, query and body of the request, parsed with the shared `parseRequest` (the API client's and
 * the emulator's), so a bad request gets the service's own 422. The body is read under the size cap
 * (413); it must be JSON, or one of the route's `textBody` types, kept as received (415 otherwise;
 * requiring them also forces a CORS preflight on cross-site browser requests).
 */
export function parseStage({ maxBodyBytes }: { maxBodyBytes: number }): Stage {
  return (ctx, next) => {
    const { endpoint, textBody } = ctx.match!.route;
    // A route without a body has nothing to await: validated and passed on in the same turn.
    if (!endpoint.body && !textBody) return validated(ctx, next, undefined);
    return readBoundedBody(ctx.request, maxBodyBytes).then((bodyText) => validated(ctx, next, bodyText));
  };
}

function validated(ctx: RelayContext, next: Next, bodyText: string | undefined): Promise<Outcome> {
  const match = ctx.match!;
  const plain = bodyText === undefined && !ctx.search;
  const known = plain ? remembered.get(match) : undefined;
  if (known) {
    ctx.input = known;
    return next();
  }
  const { route, params } = match;
  const { endpoint, textBody } = route;
  const type = ctx.request.header('content-type') ?? '';
  if (bodyText !== undefined) {
    const mediaType = type.split(';')[0]!.trim().toLowerCase();
    const accepted = textBody ? textBody.contentTypes.includes(mediaType) : JSON_TYPE.test(type);
    const expected = textBody ? textBody.contentTypes.join(' or ') : 'application/json';
    if (bodyText.trim() !== '' && !accepted) throw new RelayError(415, `Content-Type must be ${expected}`, `content-type ${JSON.stringify(type || '(none)')} is not ${expected}`);
  }
  // No query string: the empty object reading one would give, without the reading.
  const query = ctx.search ? queryFromUrl(endpoint, new URLSearchParams(ctx.search)) : {};
  const parsed = parseRequest(endpoint as Endpoint, { params, query, ...(endpoint.body && bodyText !== undefined ? { bodyText } : {}) });
  const detail = parsed.ok ? [] : [...parsed.detail];
  if (textBody && !bodyText?.trim()) detail.push({ loc: ['body'], msg: 'Field required', type: 'missing' });
  if (!parsed.ok || detail.length) {
    const bounded = boundedDetail(detail);
    throw new RelayError(422, bounded, describeDetail(bounded));
  }
  const value = parsed.value as Pick<Input, 'params' | 'query' | 'body'>;
  // The content type as sent, parameters included (a multipart body needs its boundary).
  const input: Input = { params: value.params, query: value.query, body: value.body, text: textBody && bodyText !== undefined ? { type: type.trim(), text: bodyText } : undefined };
  if (plain) {
    Object.freeze(input.params);
    if (input.query) Object.freeze(input.query);
    remembered.set(match, Object.freeze(input));
  }
  ctx.input = input;
  return next();
}
