import type { Endpoint } from '../schemas/index.js';
import type { SessionGrants } from './grant.js';
import type { Incoming, Reply } from './message.js';
import type { SessionSlots } from './session-slots.js';
import type { RelayCaller, RelayEndpointId } from './types.js';
import type { Answer, Upstream } from './upstream.js';

/**
 * The types the route table, the router, the policies and the stages share. A leaf: it imports only
 * types of modules that know nothing of routes, so no module of the relay loops back through it.
 */

/** What a stage or a policy hands back: a reply the relay made, or an upstream answer still to be guarded on its way out. */
export type Outcome = Reply | Answer;

/** The request as the `parse` stage validated it with the shared schemas. */
export interface Input {
  params: Record<string, string>;
  query: Record<string, unknown> | undefined;
  body: Record<string, unknown> | undefined;
  /** A non-JSON body as received (routes with `textBody`), its content type with parameters. */
  text: { type: string; text: string } | undefined;
}

/** A template segment: a literal (`param` null) or a parameter (`literal` null). One shape, so matching stays monomorphic. */
export interface Segment {
  readonly literal: string | null;
  readonly param: string | null;
}

export interface CompiledRoute {
  readonly route: RelayRoute;
  readonly segments: readonly Segment[];
}

/**
 * A route table ready for matching: its routes in table order, and the same routes bucketed by
 * method and segment count (`GET 4`), so a request is compared with the few routes that can match.
 */
export interface RouteTable {
  readonly routes: readonly CompiledRoute[];
  readonly buckets: ReadonlyMap<string, readonly CompiledRoute[]>;
  /** Matches found before, by prefix, method and raw path (see `matchRoute`). */
  readonly found: Map<string, RouteMatch>;
}

/** A request path matched to an allowed route, with its decoded path parameters. */
export interface RouteMatch {
  readonly id: RelayEndpointId;
  readonly route: RelayRoute;
  readonly params: Readonly<Record<string, string>>;
}

/** Limits on what a `user` may ask of the reports (E11–E13) and of upstream JSON. */
export interface ReportLimits {
  readonly defaultDays: number;
  readonly maxDays: number;
  /** Most bytes of an upstream JSON answer read to scope it. */
  readonly maxJsonBytes: number;
}

/** What the policies work with, fixed at `createRelay` and shared by every request. */
export interface RelayServices {
  readonly prefix: string;
  readonly table: RouteTable;
  readonly upstream: Upstream;
  readonly grants: SessionGrants;
  readonly slots: SessionSlots;
  readonly reports: ReportLimits;
  /** Paths into `session` a browser may set on the OpenAI-compatible routes. */
  readonly openaiSessionFields: readonly (readonly string[])[];
}

/** A request past the `parse` stage, as a policy sees it: the route, the caller and the validated input are known. */
export interface Routed {
  readonly request: Incoming;
  readonly requestId: string;
  /** Headers every answer carries; a policy adds its rewrites (`location`). */
  readonly headers: Record<string, string>;
  readonly services: RelayServices;
  readonly match: RouteMatch;
  readonly caller: RelayCaller;
  readonly input: Input;
}

/** How a route serves one role: it returns an upstream answer (guarded on its way out) or a reply of its own. */
export type Policy = (ctx: Routed) => Promise<Outcome>;

/**
 * One entry of the route table: its endpoint in the shared table (method, path template, the
 * schemas `parseRequest` validates with, and the upstream endpoint it maps to when that differs),
 * and its policies: how a caller of role `user` is scoped, and what an `admin` gets (default: the
 * request forwarded as validated).
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
