/**
 * `kb-voice/relay`: the backend relay that holds the API key and lets browsers reach the realtime
 * endpoints. Importing this module loads no Node built-in (edge runtimes); `serveRelay`,
 * `toNodeHandler` and `createNodeFetch` load theirs when called.
 */
export { createRelay, RELAY_DEFAULTS } from './relay.js';
export { serveRelay, toNodeHandler, SERVER_LIMIT_DEFAULTS, DEFAULT_MAX_DRAIN_BYTES, type NodeHandler, type NodeHandlerOptions, type RelayServer, type RelayServerLimits } from './node/node.js';
export { createNodeFetch } from './node/node-fetch.js';
export { SessionGrants } from './grant.js';
export { RELAY_ENDPOINT_IDS } from './routes.js';
export { RelayError } from './errors.js';
export { formatLogEntry } from './log-format.js';
export { FORWARDED_REQUEST_HEADERS, RETURNED_RESPONSE_HEADERS } from './headers.js';
export { RELAY_ERROR_HEADER } from './upstream-errors.js';
export { DEFAULT_OPENAI_SESSION_FIELDS, NEVER_OPENAI_SESSION_FIELDS } from './policies/openai.js';
export { hostCheck, LOOPBACK } from './stages/host.js';
export type { RateLimitDecision, Relay, RelayCaller, RelayEndpointId, RelayLogEntry, RelayLogger, RelayOptions, RelayOutcome, RelayRole, RelaySpan, RelayStage, RelayStageContext, RelayTracer, UpstreamFetch } from './types.js';
export { traceStage, type TraceStageOptions } from './stages/trace.js';
