import { endpoints, openaiRelayEndpoints, sourcesRelayEndpoints } from '../schemas/index.js';

/**
 * The endpoints the relay lets through, in table order: the one list `RelayEndpointId`,
 * `RELAY_ENDPOINT_IDS` and the route table come from (routes.ts gives each its policies, and its
 * type asks for every id listed here). A leaf: it imports only the shared endpoint table, so the
 * public types (types.ts) can name the ids without reaching the policies.
 */
export const RELAY_ENDPOINTS = [
  endpoints.RS,
  endpoints.RT,
  endpoints.E1,
  endpoints.E11,
  endpoints.E12,
  endpoints.E13,
  endpoints.E14,
  endpoints.E17,
  endpoints.E18,
  endpoints.E19,
  endpoints.E6,
  // E9 under the robot (every relayed path names one); upstream the service's own /pdf/highlight
  { ...sourcesRelayEndpoints.E9, upstream: endpoints.E9 },
  endpoints.E15,
  openaiRelayEndpoints.OAI_SECRET,
  openaiRelayEndpoints.OAI_CALL,
] as const;

/**
 * The endpoints the relay lets through (see `RELAY_ENDPOINT_IDS`): realtime signaling and its session
 * resource, E1, the reports E11–E13, E14, E17, E18, E19, E6, E9 (under the robot: see
 * `sourcesRelayEndpoints`), E15, and the OpenAI-compatible routes.
 */
export type RelayEndpointId = (typeof RELAY_ENDPOINTS)[number]['id'];
