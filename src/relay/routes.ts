import { endpoints } from '../schemas/index.js';
import { RELAY_ENDPOINTS, type RelayEndpointId } from './allowlist.js';
import { openaiCall, openaiClientSecret } from './policies/openai.js';
import { signalingAsAdmin, signalingAsUser } from './policies/realtime.js';
import { RelayError } from './errors.js';
import { forUser } from './policies/scope.js';
import { forUserSources, highlightAsAdmin } from './policies/sources.js';
import type { RelayRoute } from './route-types.js';
import { compileRoutes } from './router.js';

/** What a route adds to its endpoint: its policies and, for a non-JSON body, its content types. */
type RoutePolicies = Omit<RelayRoute, 'endpoint'>;

/**
 * Each allowed endpoint's policies (see `RelayRoute`), keyed by its id: an endpoint added to the
 * allowlist (allowlist.ts) does not compile until it has its entry here. A route's own rewrites
 * live in its policies.
 */
const POLICIES: { readonly [Id in RelayEndpointId]: RoutePolicies } = {
  RS: { user: signalingAsUser, admin: signalingAsAdmin },
  RT: { user: forUser.sessionInPath, textBody: { contentTypes: [endpoints.RT.contentType] } },
  E1: { user: forUser.warmup },
  E11: { user: forUser.costSummary },
  E12: { user: forUser.sessionCosts },
  E13: { user: forUser.usage },
  E14: { user: forUser.sessionInQuery },
  E17: { user: forUserSources.message },
  E18: { user: forUserSources.references },
  E19: { user: forUser.sessionInQuery },
  E6: { user: forUserSources.rating },
  E9: { user: forUserSources.highlight, admin: highlightAsAdmin },
  E15: { user: forUser.deleteSession },
  OAI_SECRET: { user: openaiClientSecret, admin: openaiClientSecret },
  OAI_CALL: { user: openaiCall, admin: openaiCall, textBody: { contentTypes: ['application/sdp', 'multipart/form-data'] } },
};

/**
 * The route table: one entry per path the relay lets through, in the allowlist's order; everything
 * else answers 404 without reaching the upstream.
 */
export const RELAY_ROUTES: readonly RelayRoute[] = RELAY_ENDPOINTS.map((endpoint) => ({ endpoint, ...POLICIES[endpoint.id] }));

/** The endpoints the relay lets through, in table order. */
export const RELAY_ENDPOINT_IDS: readonly RelayEndpointId[] = RELAY_ENDPOINTS.map((e) => e.id);

/** The relay's own table, compiled once: every `createRelay` matches against it (matches depend on the prefix, which their cache keys carry). */
export const RELAY_TABLE = compileRoutes(RELAY_ROUTES);
