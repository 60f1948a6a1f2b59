import { ApiError } from './errors.js';

/** How many sessions' resources one API client remembers (the most recent; older ones are rebuilt from ids). */
export const MAX_REMEMBERED_RESOURCES = 64;

/** Base for resolving URLs when neither the response nor the page gives an absolute one (a relative `baseUrl` in tests). */
const NO_ORIGIN = 'http://origin.invalid/';

function absolute(url: string): URL {
  const page = (globalThis as { location?: { href?: string } }).location?.href;
  return new URL(url, page ?? NO_ORIGIN);
}

/**
 * The signaling resource a 201 names in `Location`, as WHIP (RFC 9725 §4.2) says: resolved against
 * the URL the offer went to (a relative reference, or an absolute URL). Only the same origin is
 * followed: the request's headers (the API key, your relay's credentials) never go to another host.
 * Undefined when there is no `Location` (the resource is then addressed by its ids, as CONTRACT.md
 * fixes it).
 */
export function followLocation(location: string | null, requested: string, what: string): string | undefined {
  if (!location?.trim()) return undefined;
  const from = absolute(requested);
  let target: URL;
  try {
    target = new URL(location.trim(), from);
  } catch (cause) {
    throw new ApiError('invalid_response', `${what}: the answer's Location "${location}" is not a URL`, { status: 201, cause });
  }
  if (target.origin !== from.origin) {
    throw new ApiError('invalid_response', `${what}: the answer's Location is on another origin (${target.origin}, the offer went to ${from.origin}); kb-voice follows a signaling resource on the same origin only`, { status: 201 });
  }
  // Same origin: keep the form the caller's own URLs have (relative stays relative in a browser).
  return /^[a-z][a-z\d+.-]*:/i.test(requested) ? target.href : `${target.pathname}${target.search}`;
}

/** The signaling resources of the sessions this client connected, most recent first out of a bounded map. */
export class SignalingResources {
  readonly #urls = new Map<string, string>();

  remember(aiId: string, sessionId: string, url: string | undefined): void {
    const key = `${aiId}\n${sessionId}`;
    this.#urls.delete(key);
    if (url === undefined) return;
    this.#urls.set(key, url);
    if (this.#urls.size > MAX_REMEMBERED_RESOURCES) this.#urls.delete(this.#urls.keys().next().value!);
  }

  get(aiId: string, sessionId: string): string | undefined {
    return this.#urls.get(`${aiId}\n${sessionId}`);
  }
}
