import type { Stage } from '../compose.js';
import type { AllowedOrigins } from '../allowed-origins.js';
import { RelayError } from '../errors.js';
import { mergeHeaders } from '../message.js';
import type { RouteTable } from '../route-types.js';
import { allowedMethods } from '../router.js';

export interface CorsStageOptions {
  origins: AllowedOrigins;
  prefix: string;
  table: RouteTable;
}

/**
 * CORS, decided once per request: an allowed `Origin` adds its headers to every answer; a preflight
 * is answered here (204 for an allowlisted path and method, 404 otherwise, 403 for another origin);
 * any other request whose `Origin` is neither the relay's own nor allowed is refused (403) before
 * anything else happens, which also blocks cross-site request forgery when `authorize` uses cookies.
 */
export function corsStage({ origins, prefix, table }: CorsStageOptions): Stage {
  return (ctx, next) => {
    const { request } = ctx;
    const origin = request.header('origin');
    if (request.method === 'OPTIONS') {
      const wanted = request.header('access-control-request-method');
      const methods = allowedMethods(ctx.rawPath, prefix, table);
      if (origin === null || wanted === null || !methods.includes(wanted)) throw new RelayError(404, 'Not found', `preflight for ${wanted ?? '(no method)'} on a path off the allowlist`);
      if (!origins.allows(origin)) throw new RelayError(403, 'Origin not allowed', `preflight from origin ${origin}, which is not in allowedOrigins`);
      return Promise.resolve({ status: 204, headers: mergeHeaders(ctx.headers, origins.preflight(origin, methods, request.header('access-control-request-headers'))), body: null });
    }
    if (origin !== null) {
      if (origins.allows(origin)) Object.assign(ctx.headers, origins.headers(origin));
      else if (origin !== request.origin) throw new RelayError(403, 'Origin not allowed', `origin ${origin} is neither the relay's own (${request.origin}) nor in allowedOrigins`);
    }
    return next();
  };
}
