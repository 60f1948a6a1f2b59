import { isAnswer, type Stage } from '../compose.js';
import type { RelayContext } from '../context.js';
import { errorReply, RelayError } from '../errors.js';
import type { Reply } from '../message.js';
import type { RouteTable } from '../route-types.js';
import { matchRoute } from '../router.js';
import type { RelayLogger } from '../types.js';
import { describe } from '../upstream.js';

export interface LogStageOptions {
  log: RelayLogger;
  /** Whether info entries are wanted (a logger was given); refusals and failures are always logged. */
  logsInfo: boolean;
  prefix: string;
  table: RouteTable;
}

/**
 * The outermost stage: every refusal or failure thrown by a later stage becomes its `{ detail }`
 * reply here (500 for anything but a `RelayError`), and every request is logged once: `info` when
 * answered (only when a logger was given: without one the entry is not even built), `warn` for a
 * refusal, `error` for a failure.
 */
export function logStage(o: LogStageOptions): Stage {
  const failed = (ctx: RelayContext, started: number, error: unknown): Reply =>
    logged(ctx, started, errorReply(error, ctx.headers), error instanceof RelayError ? error.reason : `internal error: ${describe(error)}`);

  const logged = (ctx: RelayContext, started: number, reply: Reply, reason: string | undefined): Reply => {
    const { status } = reply;
    const { request } = ctx;
    if (status < 400 && !o.logsInfo) return reply;
    // A refusal before the match stage (CORS) still names the endpoint the request was for.
    const endpoint = ctx.match?.id ?? (status >= 400 ? matchRoute(request.method, ctx.rawPath, o.prefix, o.table)?.id : undefined);
    o.log({
      level: status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info',
      message: status >= 500 ? 'failed' : status >= 400 ? 'refused' : 'request',
      requestId: ctx.requestId,
      method: request.method,
      ...(endpoint ? { endpoint } : {}),
      status,
      durationMs: Date.now() - started,
      ...(ctx.role ? { role: ctx.role } : {}),
      ...(reason ? { reason } : {}),
    });
    return reply;
  };

  return (ctx, next) => {
    const started = Date.now();
    return next().then(
      (out) => (isAnswer(out) ? failed(ctx, started, new Error('an upstream answer left the pipeline unguarded')) : logged(ctx, started, out, undefined)),
      (error: unknown) => failed(ctx, started, error),
    );
  };
}
