import type { RelayContext } from './context.js';
import type { Outcome } from './route-types.js';
import type { Answer } from './upstream.js';

export type { Outcome };
export type Next = () => Promise<Outcome>;

/**
 * One step of the relay's pipeline (CORS, match, authorize, …): it may answer by itself (return or
 * throw a `RelayError`), or call `next()` for the rest of the pipeline and work on its outcome.
 * Stages are made by factories (`stages/*.ts`) that take the options they need, as hono's middleware.
 */
export type Stage = (ctx: RelayContext, next: Next) => Promise<Outcome>;

/** Whether an outcome is an upstream answer still to be guarded. */
export const isAnswer = (o: Outcome): o is Answer => 'settle' in o;

/**
 * The stages as one function, each stage running the rest through `next()` (the onion model of
 * hono's `compose`, after koa-compose). The last stage must answer: calling `next()` past it, or
 * twice from one stage, is a bug and rejects.
 */
export function compose(stages: readonly Stage[]): (ctx: RelayContext) => Promise<Outcome> {
  const n = stages.length;
  return (ctx) => {
    let index = -1;
    const dispatch = (i: number): Promise<Outcome> => {
      if (i <= index) return Promise.reject(new Error('next() called twice by one relay stage'));
      index = i;
      if (i === n) return Promise.reject(new Error('the last relay stage called next()'));
      // A stage that answers without awaiting may throw synchronously: still a rejection (as hono's compose).
      try {
        return stages[i]!(ctx, () => dispatch(i + 1));
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return dispatch(0);
  };
}
