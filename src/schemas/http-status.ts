/**
 * The class of an HTTP status, as RFC 9110 §15 groups them: the one reading of a status range for
 * the relay (its log levels, which upstream answers pass), the emulator (its error shapes) and the
 * benchmarks (what counts as served). Retrying is a separate rule (src/api: which statuses are worth
 * another try), not a class.
 */
export type StatusClass = 'informational' | 'success' | 'redirection' | 'client_error' | 'server_error';

/** The class of `status` (100–599); a status outside that range is a `server_error` (the peer is broken). */
export function statusClass(status: number): StatusClass {
  if (status >= 200 && status < 300) return 'success';
  if (status >= 400 && status < 500) return 'client_error';
  if (status >= 300 && status < 400) return 'redirection';
  if (status >= 100 && status < 200) return 'informational';
  return 'server_error';
}
