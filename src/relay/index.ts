/**
 * `kb-voice/relay`: the backend relay that holds the API key and lets browsers reach the realtime
 * endpoints. Importing this module loads no Node built-in (edge runtimes); `serveRelay`,
 * `toNodeHandler` and `createNodeFetch` load theirs when called.
 */
export { createRelay } from './relay.js';
export { serveRelay, toNodeHandler, SERVER_LIMIT_DEFAULTS, DEFAULT_MAX_DRAIN_BYTES, type NodeHandler, type NodeHandlerOptions, type RelayServer, type RelayServerLimits } from './node.js';
export { createNodeFetch } from './node-fetch.js';
export { SessionGrants } from './grant.js';
export { RELAY_ENDPOINT_IDS } from './routes.js';
export { RelayError } from './errors.js';
export { formatLogEntry } from './log.js';
export { FORWARDED_REQUEST_HEADERS, RETURNED_RESPONSE_HEADERS } from './headers.js';
export { traceStage, type RelayTracer, type RelaySpan, type TraceStageOptions } from './stages/trace.js';
export type { RateLimitDecision, Relay, RelayCaller, RelayEndpointId, RelayLogEntry, RelayLogger, RelayOptions, RelayRole, UpstreamFetch } from './types.js';
