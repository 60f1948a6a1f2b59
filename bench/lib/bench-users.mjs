// What bench 3's "as users run it" rows share between the relay (relay-child.mjs `users`, `express`)
// and the same-work floor (bare-proxy-child.mjs `users`, `express-users`): the deployment secret, the
// bench user, the app's `authorize` hook and its logger. The same functions run in both processes,
// so the floor pays for the app's own code exactly as the relay does.

/** The users relay's deployment secret (its session grants) and the bench user (the cookie is the user id). */
export const USERS_SECRET = 'bench-deployment-secret';
export const BENCH_USER = 'bench-user-42';

/** What an app's hook does: read its session cookie, look the user up (here: the cookie is the id). */
export async function authorize(req) {
  const id = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.get('cookie') ?? '')?.[1];
  return id ? { userIdentifier: id, role: 'user' } : null;
}

/** A logger that takes every entry (info included), as an app's structured logger would. */
export const logs = { count: 0 };
export function logger() {
  logs.count++;
}
