import { isAnswer, type Stage } from '../compose.js';

/**
 * Every upstream answer a policy returns leaves through the secret guard: its body passed through
 * (streamed, unbuffered) and scanned so that neither the API key nor the grant secret reaches the
 * caller, with the allowlisted upstream headers and the request's own (`ctx.headers`). Replies the
 * relay made itself (relay-built JSON) go out as they are.
 */
export const guard: Stage = (ctx, next) => next().then((out) => (isAnswer(out) ? ctx.config.upstream.passThrough(out, ctx.headers) : out));
