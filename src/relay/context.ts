import type { Cors } from './cors.js';
import type { SessionGrants } from './grant.js';
import type { Incoming } from './message.js';
import type { RouteMatch, RouteTable } from './router.js';
import type { RelayCaller, RelayLogger, RelayOptions, RelayRole } from './types.js';
import type { Upstream } from './upstream.js';

/** What a relay is made of, fixed at `createRelay`: shared by every request's context. */
export interface RelayConfig {
  readonly prefix: string;
  readonly table: RouteTable;
  readonly cors: Cors;
  readonly maxBodyBytes: number;
  readonly grants: SessionGrants;
  readonly upstream: Upstream;
  readonly log: RelayLogger;
  /** Whether info entries are wanted (a logger was given); refusals and failures are always logged. */
  readonly logsInfo: boolean;
  readonly authorize: RelayOptions['authorize'];
  readonly rateLimit: RelayOptions['rateLimit'];
}

/** The request as the `parse` stage validated it with the shared schemas. */
export interface Input {
  params: Record<string, string>;
  query: Record<string, unknown> | undefined;
  body: Record<string, unknown> | undefined;
  /** A non-JSON body as received (routes with `textBody`), its content type with parameters. */
  text: { type: string; text: string } | undefined;
}

/**
 * One request on its way through the stages: each stage reads what earlier ones found and adds its
 * own (the route, the caller, the input). A plain object per request, no closures.
 */
export class RelayContext {
  /** Headers every answer carries: the request id, CORS for an allowed origin, a route's rewrites (`location`). */
  readonly headers: Record<string, string>;
  /** The request target's path, still percent-encoded, and its query without `?`. */
  readonly rawPath: string;
  readonly search: string;
  match: RouteMatch | undefined;
  caller: RelayCaller | undefined;
  input: Input | undefined;

  constructor(
    readonly config: RelayConfig,
    readonly request: Incoming,
    readonly requestId: string,
  ) {
    this.headers = { 'x-request-id': requestId };
    const { target } = request;
    const q = target.indexOf('?');
    this.rawPath = q < 0 ? target : target.slice(0, q);
    this.search = q < 0 ? '' : target.slice(q + 1);
  }

  get role(): RelayRole | undefined {
    return this.caller?.role;
  }
}
