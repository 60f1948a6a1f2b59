import { endpoints, openaiRelayEndpoints, type Endpoint } from '../schemas/index.js';
import { openaiCall, openaiClientSecret } from './policies/openai.js';
import { signalingAsAdmin, signalingAsUser } from './policies/realtime.js';
import { RelayError } from './errors.js';
import { forUser } from './policies/scope.js';
import type { Policy, RelayRoute } from './route-types.js';
import { compileRoutes } from './router.js';
import type { RelayEndpointId } from './types.js';

/**
 * One entry per path the relay lets through; everything else answers 404 without reaching the
 * upstream. An entry names its endpoint in the shared table and its policies (see `RelayRoute`).
 * Adding a route is one entry here (and its id in `RelayEndpointId`); a route's own rewrites live
 * in its policies.
 */
const route = <const E extends Endpoint & { id: RelayEndpointId }>(endpoint: E, user: Policy, more: Pick<RelayRoute, 'admin' | 'textBody'> = {}): RelayRoute<E> => ({ endpoint, user, ...more });

/**
 * E18 and E9 for role `admin` (the widget's sources and Show passage through the relay); a `user`
 * is refused with the 404 of anything not granted until their scoping (issue 47's relay part) lands.
 */
const notForUsers: Policy = () => {
  throw new RelayError(404, 'Not found', 'E18 and E9 are not scoped to users yet');
};

/** The allowlist, written once: `RELAY_ENDPOINT_IDS` and the matcher come from it. */
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
  route(endpoints.E18, notForUsers),
  route(endpoints.E9, notForUsers),
  route(endpoints.E15, forUser.deleteSession),
  route(openaiRelayEndpoints.OAI_SECRET, openaiClientSecret, { admin: openaiClientSecret }),
  route(openaiRelayEndpoints.OAI_CALL, openaiCall, { admin: openaiCall, textBody: { contentTypes: ['application/sdp', 'multipart/form-data'] } }),
] as const;

// The public id type is written out in types.ts; the table must name each id exactly once.
type TableIds = (typeof RELAY_ROUTES)[number]['endpoint']['id'];
const everyIdRouted: [RelayEndpointId] extends [TableIds] ? true : never = true;
void everyIdRouted;

/** The endpoints the relay lets through, in table order. */
export const RELAY_ENDPOINT_IDS: readonly RelayEndpointId[] = RELAY_ROUTES.map((r) => r.endpoint.id);

/** The relay's own table, compiled once: every `createRelay` matches against it (matches depend on the prefix, which their cache keys carry). */
export const RELAY_TABLE = compileRoutes(RELAY_ROUTES);
