import type { Stage } from '../compose.js';
import type { RelayContext } from '../context.js';
import { RelayError } from '../errors.js';
import { mergeHeaders, type Reply } from '../message.js';
import { allowedMethods } from '../router.js';

/**
 * CORS, decided once per request: an allowed `Origin` adds its headers to every answer; a preflight
 * is answered here (204 for an allowlisted path and method, 404 otherwise, 403 for another origin);
 * any other request whose `Origin` is neither the relay's own nor allowed is refused (403) before
 * anything else happens, which also blocks cross-site request forgery when `authorize` uses cookies.
 */
export const cors: Stage = (ctx, next) => {
  const { request, config } = ctx;
  const origin = request.header('origin');
  if (request.method === 'OPTIONS') return Promise.resolve(preflight(ctx, origin));
  if (origin !== null) {
    if (config.cors.allows(origin)) Object.assign(ctx.headers, config.cors.headers(origin));
    else if (origin !== request.origin) throw new RelayError(403, 'Origin not allowed', `origin ${origin} is neither the relay's own (${request.origin}) nor in allowedOrigins`);
  }
  return next();
};

function preflight(ctx: RelayContext, origin: string | null): Reply {
  const { request, config } = ctx;
  const wanted = request.header('access-control-request-method');
  const methods = allowedMethods(ctx.rawPath, config.prefix, config.table);
  if (origin === null || wanted === null || !methods.includes(wanted)) throw new RelayError(404, 'Not found', `preflight for ${wanted ?? '(no method)'} on a path off the allowlist`);
  if (!config.cors.allows(origin)) throw new RelayError(403, 'Origin not allowed', `preflight from origin ${origin}, which is not in allowedOrigins`);
  return { status: 204, headers: mergeHeaders(ctx.headers, config.cors.preflight(origin, methods, request.header('access-control-request-headers'))), body: null };
}
