/**
 * The child side of forked.ts: answers each request `{ id, op, ... }` from the parent with
 * `{ id, ok: true, value }` or `{ id, ok: false, error: { code, message } }`, tells the parent it is
 * ready, and runs `onDisconnect` when the parent goes away (its cue to leave). Events of its own go
 * to the parent through `toParent`.
 */
import type { ForkedFailure } from './forked.js';

/** Sends a message (an event, not a reply) to the parent, if there is one. */
export const toParent = (message: unknown): void => {
  process.send?.(message);
};

/** Serves the parent's requests with `handle` and says `ready`. */
export function serveParent<R extends { id: number; op: string }>(handle: (request: R) => Promise<unknown>, onDisconnect: () => void): void {
  process.on('message', (request: R) => {
    handle(request).then(
      (value) => toParent({ id: request.id, ok: true, value }),
      (error: unknown) => toParent({ id: request.id, ok: false, error: failure(error) }),
    );
  });
  process.on('disconnect', onDisconnect);
  toParent({ ready: true });
}

function failure(error: unknown): ForkedFailure {
  const code = (error as { code?: unknown } | null)?.code;
  return { code: typeof code === 'string' ? code : null, message: (error as Error | null)?.message ?? String(error) };
}
