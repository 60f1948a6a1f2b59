import type { Stage } from '../compose.js';
import { forward } from '../policies/forward.js';
import type { Routed } from '../route-types.js';

/**
 * The route's policy for the caller's role: `user` callers get the route's scoping (`route.user`),
 * `admin` callers its `admin` policy, by default the request forwarded as validated. The last stage.
 */
export function policyStage(): Stage {
  return (ctx) => {
    const routed = ctx as Routed;
    const { route } = routed.match;
    const serve = routed.caller.role === 'user' ? route.user : route.admin;
    return serve ? serve(routed) : forward(routed);
  };
}
