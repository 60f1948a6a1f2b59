import type { Stage } from '../compose.js';
import { RelayError } from '../errors.js';
import type { RouteTable } from '../route-types.js';
import { matchRoute } from '../router.js';

/**
 * The allowlist: the method and the canonical raw path under the prefix must name a route of the
 * table (404 otherwise, nothing reaches the upstream); a target that is not a path is a 400.
 */
export function matchStage({ prefix, table }: { prefix: string; table: RouteTable }): Stage {
  return (ctx, next) => {
    const { request, rawPath } = ctx;
    if (!request.target.startsWith('/')) throw new RelayError(400, 'Bad request target', `request target ${JSON.stringify(request.target.slice(0, 100))} is not a path`);
    const found = matchRoute(request.method, rawPath, prefix, table);
    if (!found) throw new RelayError(404, 'Not found', `${request.method} ${rawPath.slice(0, 200)} is not on the allowlist (or not a canonical path under ${prefix || '/'})`);
    ctx.match = found;
    return next();
  };
}
