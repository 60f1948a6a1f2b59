import type { Stage } from '../compose.js';
import { RelayError } from '../errors.js';
import type { RelayOptions } from '../types.js';

/** The `rateLimit` hook, after `authorize` and before anything is read or forwarded: a refusal is a 429 (with `Retry-After` when given). */
export function rateLimitStage(hook: NonNullable<RelayOptions['rateLimit']>): Stage {
  return (ctx, next) =>
    Promise.resolve(hook(ctx.request.request(), ctx.caller!, ctx.match!.id)).then((decision) => {
      const { allowed, retryAfterSeconds } = typeof decision === 'boolean' ? { allowed: decision, retryAfterSeconds: undefined } : decision;
      if (!allowed) throw new RelayError(429, 'Too many requests', 'rateLimit refused the request', retryAfterSeconds !== undefined ? { 'retry-after': String(Math.ceil(retryAfterSeconds)) } : {});
      return next();
    });
}
