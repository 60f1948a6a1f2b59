import { endpoints, openaiRelayEndpoints, type Endpoint } from '../schemas/index.js';
import { openaiCall, openaiClientSecret } from './openai.js';
import { signalingAsAdmin, signalingAsUser } from './realtime.js';
import { forUser } from './scope.js';
import { compileRoutes } from './router.js';
import type { Policy } from './stages/forward.js';

/**
 * One entry per path the relay lets through; everything else answers 404 without reaching the
 * upstream. An entry names its endpoint in the shared table (method, path template, the schemas
 * `parseRequest` validates with, and the upstream endpoint it maps to when that differs), and its
 * policies: how a caller of role `user` is scoped, and what an `admin` gets (default: the request
 * forwarded as validated). Adding a route is one entry; a route's own rewrites live in its policies.
 */
export interface RelayRoute<E extends Endpoint = Endpoint> {
  readonly endpoint: E;
  readonly user: Policy;
  /** Default: `forward(ctx)`, the validated request as it is. */
  readonly admin?: Policy;
  /**
   * A non-JSON body (e.g. `application/sdp`, `application/trickle-ice-sdpfrag`): read as text under
   * the body cap, required, refused (415) in any other content type, and forwarded as received with
   * its content type. The endpoint then declares no JSON `body` schema.
   */
  readonly textBody?: { readonly contentTypes: readonly string[] };
}

const route = <const E extends Endpoint>(endpoint: E, user: Policy, more: Pick<RelayRoute, 'admin' | 'textBody'> = {}): RelayRoute<E> => ({ endpoint, user, ...more });

/** The allowlist, written once: the type, `RELAY_ENDPOINT_IDS` and the matcher all come from it. */
export const RELAY_ROUTES = [
  route(endpoints.RS, signalingAsUser, { admin: signalingAsAdmin }),
  route(endpoints.RT, forUser.sessionInPath, { textBody: { contentTypes: [endpoints.RT.contentType] } }),
  route(endpoints.E1, forUser.warmup),
  route(endpoints.E11, forUser.costSummary),
  route(endpoints.E12, forUser.sessionCosts),
  route(endpoints.E13, forUser.usage),
  route(endpoints.E14, forUser.sessionInQuery),
  route(endpoints.E17, forUser.message),
  route(endpoints.E19, forUser.sessionInQuery),
  route(endpoints.E6, forUser.rating),
  route(endpoints.E15, forUser.sessionInPath),
  route(openaiRelayEndpoints.OAI_SECRET, openaiClientSecret, { admin: openaiClientSecret }),
  route(openaiRelayEndpoints.OAI_CALL, openaiCall, { admin: openaiCall, textBody: { contentTypes: ['application/sdp', 'multipart/form-data'] } }),
] as const;

/** Identifiers of the endpoints the relay lets through. */
export type RelayEndpointId = (typeof RELAY_ROUTES)[number]['endpoint']['id'];

/** The endpoints the relay lets through, in table order. */
export const RELAY_ENDPOINT_IDS: readonly RelayEndpointId[] = RELAY_ROUTES.map((r) => r.endpoint.id);

/** The relay's own table, compiled once. */
export const RELAY_TABLE = compileRoutes(RELAY_ROUTES);

