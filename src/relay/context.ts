import type { Incoming } from './message.js';
import type { Input, RelayServices, RouteMatch } from './route-types.js';
import type { RelayCaller, RelayEndpointId, RelayRole, RelayStageContext } from './types.js';

/**
 * One request on its way through the stages: each stage reads what earlier ones found and adds its
 * own (the route, the caller, the input). A plain object per request, no closures. `services` are
 * the relay's, shared by every request, for the policies; stages own their options (see `stages/`).
 */
export class RelayContext implements RelayStageContext {
  /** Headers every answer carries: the request id, CORS for an allowed origin, a route's rewrites (`location`). */
  readonly headers: Record<string, string>;
  /** The request target's path, still percent-encoded, and its query without `?`. */
  readonly rawPath: string;
  readonly search: string;
  match: RouteMatch | undefined;
  caller: RelayCaller | undefined;
  input: Input | undefined;

  constructor(
    readonly services: RelayServices,
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

  // The app's view (RelayStageContext): read through, nothing copied per request.
  get method(): string {
    return this.request.method;
  }
  get target(): string {
    return this.request.target;
  }
  get endpoint(): RelayEndpointId | undefined {
    return this.match?.id;
  }
  header(name: string): string | null {
    return this.request.header(name);
  }
  webRequest(): Request {
    return this.request.request();
  }
}
