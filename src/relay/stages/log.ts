import { isAnswer, type Stage } from '../compose.js';
import type { RelayContext } from '../context.js';
import { errorReply, RelayError } from '../errors.js';
import type { Reply } from '../message.js';
import type { RouteTable } from '../route-types.js';
import { matchRoute } from '../router.js';
import type { RelayLogEntry, RelayLogger } from '../types.js';
import { describe } from '../upstream.js';
import { statusClass } from '../../schemas/index.js';

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
    const kind = statusClass(status);
    const fault = kind === 'client_error' || kind === 'server_error';
    if (!fault && !o.logsInfo) return reply;
    // A refusal before the match stage (CORS) still names the endpoint the request was for.
    const endpoint = ctx.match?.id ?? (fault ? matchRoute(request.method, ctx.rawPath, o.prefix, o.table)?.id : undefined);
    // Built field by field in the documented order, absent fields left out: a spread of `{}` or
    // `{ endpoint }` into a literal gives the entry a hidden class off the literal's, per request.
    const entry: RelayLogEntry = {
      level: kind === 'server_error' ? 'error' : kind === 'client_error' ? 'warn' : 'info',
      message: kind === 'server_error' ? 'failed' : kind === 'client_error' ? 'refused' : 'request',
      requestId: ctx.requestId,
      method: request.method,
    };
    if (endpoint) entry.endpoint = endpoint;
    entry.status = status;
    entry.durationMs = Date.now() - started;
    const role = ctx.role;
    if (role) entry.role = role;
    if (reason) entry.reason = reason;
    o.log(entry);
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
