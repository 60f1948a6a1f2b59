import type { Stage } from '../compose.js';
import type { Routed } from './forward.js';
import { forward } from './forward.js';

/**
 * The route's policy for the caller's role: `user` callers get the route's scoping (`route.user`),
 * `admin` callers its `admin` policy, by default the request forwarded as validated.
 */
export const policy: Stage = (ctx) => {
  const routed = ctx as Routed;
  const { route } = routed.match;
  const serve = routed.caller.role === 'user' ? route.user : route.admin;
  return serve ? serve(routed) : forward(routed);
};
