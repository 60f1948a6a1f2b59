import { isAnswer, type Stage } from '../compose.js';
import type { Upstream } from '../upstream.js';

/**
 * Every upstream answer a policy returns leaves through the secret guard: its body passed through
 * (streamed, unbuffered) and scanned so that neither the API key nor the grant secret reaches the
 * caller, with the allowlisted upstream headers and the request's own (`ctx.headers`). Replies the
 * relay made itself (relay-built JSON) go out as they are.
 */
export function guardStage(upstream: Upstream): Stage {
  return (ctx, next) => next().then((out) => (isAnswer(out) ? upstream.passThrough(out, ctx.headers) : out));
}
