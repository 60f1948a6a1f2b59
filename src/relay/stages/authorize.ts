import type { Stage } from '../compose.js';
import type { RelayContext } from '../context.js';
import { Deadlines } from '../deadlines.js';
import { RelayError } from '../errors.js';
import type { Next } from '../compose.js';
import type { RelayCaller, RelayOptions } from '../types.js';

/** Caller used when no `authorize` hook is given (local QA only; the relay warns at creation). */
export const LOCAL_ADMIN: RelayCaller = Object.freeze({ userIdentifier: 'local-admin', role: 'admin' });

export interface AuthorizeStageOptions {
  authorize: RelayOptions['authorize'];
  /** The robots a `user` may reach (`'*'`: every robot on the key). */
  robots: ReadonlySet<string> | '*';
  /** Longest wait for a hook that returns a promise (503 beyond). */
  timeoutMs: number;
}

const isCaller = (c: unknown): c is RelayCaller => {
  if (typeof c !== 'object' || c === null) return false;
  const { role, userIdentifier, robots } = c as RelayCaller;
  return (role === 'admin' || role === 'user') && typeof userIdentifier === 'string' && userIdentifier.length > 0 && userIdentifier.length <= 256 &&
    (robots === undefined || (Array.isArray(robots) && robots.every((r) => typeof r === 'string')));
};

const isThenable = (v: unknown): v is PromiseLike<unknown> => typeof v === 'object' && v !== null && typeof (v as PromiseLike<unknown>).then === 'function';

const notAuthenticated = (reason: string) => new RelayError(401, 'Not authenticated', reason);

/**
 * Who is calling, from the `authorize` hook, and whether they may reach the robot of the path:
 * null, `false` or anything that is not a caller answers 401; a hook that does not settle within
 * `timeoutMs` answers 503 (the request goes no further); a robot outside the relay's `robots` (for a
 * `user`) or the caller's own `robots` answers 403.
 */
export function authorizeStage({ authorize: hook, robots, timeoutMs }: AuthorizeStageOptions): Stage {
  const deadlines = new Deadlines(timeoutMs);

  const admit = (ctx: RelayContext, next: Next, caller: unknown): ReturnType<Next> => {
    if (caller === null || caller === undefined || caller === false) throw notAuthenticated(`authorize returned ${String(caller)}`);
    if (!isCaller(caller)) throw notAuthenticated('authorize returned an invalid caller (needs role "user" | "admin", a userIdentifier of 1-256 characters and robots, when given, an array of ids)');
    const robot = ctx.match!.params.ai_id;
    // A path without a robot (E9, /pdf/highlight) is for an admin whose robots are not limited.
    const allowed = robot === undefined
      ? caller.role === 'admin' && caller.robots === undefined
      : (caller.role === 'admin' || robots === '*' || robots.has(robot)) && (caller.robots === undefined || caller.robots.includes(robot));
    ctx.caller = caller;
    if (!allowed) throw new RelayError(403, 'Robot not allowed for this caller', `robot ${robot ?? '(none)'} is outside the robots this ${caller.role} may reach`);
    return next();
  };

  if (!hook) {
    // Without a hook nothing is awaited (stages that need no await stay plain functions: fewer promises per request).
    return (ctx, next) => {
      ctx.caller = LOCAL_ADMIN;
      return next();
    };
  }
  return (ctx, next) => {
    const out: unknown = hook(ctx.request.request());
    // A caller given at once is admitted in the same turn: no promise, no timer.
    if (!isThenable(out)) return admit(ctx, next, out);
    return new Promise<unknown>((resolve, reject) => {
      const limit = deadlines.start(() => reject(new RelayError(503, 'Authorization timed out', `authorize did not settle within ${timeoutMs} ms`)));
      out.then(
        (caller) => {
          deadlines.clear(limit);
          resolve(caller);
        },
        (error: unknown) => {
          deadlines.clear(limit);
          reject(error);
        },
      );
    }).then((caller) => admit(ctx, next, caller));
  };
}
