import type { Stage } from '../compose.js';
import { RelayError } from '../errors.js';

/** The keyword of `allowedHosts` for the loopback names: `localhost`, `*.localhost`, `127.0.0.0/8`, `[::1]`. */
export const LOOPBACK = 'loopback';

const LOOPBACK_NAME = /^(?:localhost|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/;

/** The host name of a `Host` header value, lower case, without its port (IPv6 keeps its brackets); null when unusable. */
export function hostName(host: string | null): string | null {
  if (host === null) return null;
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i.exec(host.trim());
  return m ? m[1]!.toLowerCase().replace(/\.$/, '') : null;
}

/** Whether `name` (from `hostName`) is allowed by `allowed` (`'loopback'` and exact names). */
function hostAllowed(name: string | null, allowed: ReadonlySet<string>): boolean {
  if (name === null) return false;
  return allowed.has(name) || (allowed.has(LOOPBACK) && LOOPBACK_NAME.test(name));
}

/**
 * A check of `Host` values (`name` or `name:port`) against `allowedHosts` (`'loopback'` and exact
 * names, any port), made once. Exported for servers beside the relay (the emulator's control routes).
 */
export function hostCheck(allowedHosts: readonly string[]): (host: string | null) => boolean {
  const allowed = new Set(allowedHosts.map((h) => (h === LOOPBACK ? h : hostName(h) ?? h.toLowerCase())));
  return (host) => hostAllowed(hostName(host), allowed);
}

/**
 * DNS-rebinding defence: the request's `Host` must name one of `allowedHosts` (any port; 403 otherwise),
 * before CORS, which takes the relay's own origin from that header. A page on any site can make its
 * own host name resolve to a loopback address; only the name the browser sends gives it away.
 */
export function hostStage(allowedHosts: readonly string[]): Stage {
  const allows = hostCheck(allowedHosts);
  return (ctx, next) => {
    // The relay's own origin as the request names it (`Host` in Node, the URL's host in fetch runtimes).
    const { origin } = ctx.request;
    const host = origin.slice(origin.indexOf('//') + 2);
    if (!allows(host)) throw new RelayError(403, 'Host not allowed', `host ${JSON.stringify(host.slice(0, 100) || '(none)')} is not in allowedHosts`);
    return next();
  };
}
