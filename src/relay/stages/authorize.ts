import type { Stage } from '../compose.js';
import { RelayError } from '../errors.js';
import type { RelayCaller } from '../types.js';

/** Caller used when no `authorize` hook is given (local QA only; the relay warns at creation). */
export const LOCAL_ADMIN: RelayCaller = Object.freeze({ userIdentifier: 'local-admin', role: 'admin' });

const isCaller = (c: unknown): c is RelayCaller =>
  typeof c === 'object' && c !== null &&
  ((c as RelayCaller).role === 'admin' || (c as RelayCaller).role === 'user') &&
  typeof (c as RelayCaller).userIdentifier === 'string' && (c as RelayCaller).userIdentifier.length > 0;

/** Who is calling, from the `authorize` hook: null answers 401; a malformed caller is a bug of the hook (500). */
export const authorize: Stage = (ctx, next) => {
  const hook = ctx.config.authorize;
  // Without a hook nothing is awaited (stages that need no await stay plain functions: fewer promises per request).
  if (!hook) {
    ctx.caller = LOCAL_ADMIN;
    return next();
  }
  return Promise.resolve(hook(ctx.request.request())).then((caller) => {
    if (caller === null || caller === undefined) throw new RelayError(401, 'Not authenticated', 'authorize returned null');
    if (!isCaller(caller)) throw new TypeError('authorize returned an invalid caller (needs role "user" | "admin" and a non-empty userIdentifier)');
    ctx.caller = caller;
    return next();
  });
};
