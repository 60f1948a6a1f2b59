import type { RelayLogEntry, RelayLogger } from './types.js';

/** A caller-chosen request id is kept when it is this tame; otherwise the relay makes one. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestIdOf = (request: { header(name: string): string | null }) => {
  const given = request.header('x-request-id');
  return given !== null && SAFE_REQUEST_ID.test(given) ? given : crypto.randomUUID();
};

/** One line of text for an entry: `[kb-voice relay] warn 403 POST RS req=… origin http://x is not allowed`. */
export function formatLogEntry(e: RelayLogEntry): string {
  const parts = ['[kb-voice relay]', e.level];
  if (e.status !== undefined) parts.push(String(e.status));
  if (e.method) parts.push(e.method);
  if (e.endpoint) parts.push(e.endpoint);
  if (e.requestId) parts.push(`req=${e.requestId}`);
  if (e.durationMs !== undefined) parts.push(`${e.durationMs}ms`);
  parts.push(e.reason ? `${e.message}: ${e.reason}` : e.message);
  return parts.join(' ');
}

/** Without a logger, warnings and errors go to `console` (a forgotten hook or a refused origin is never silent); info is dropped. */
const consoleLogger: RelayLogger = (e) => {
  if (e.level === 'error') console.error(formatLogEntry(e));
  else if (e.level === 'warn') console.warn(formatLogEntry(e));
};

/** The relay's logger: the configured one or the console, with every secret scrubbed from every string field. */
export function createLog(logger: RelayLogger | undefined, secrets: readonly string[]): RelayLogger {
  const sink = logger ?? consoleLogger;
  const scrub = (text: string) => secrets.reduce((t, s) => (s && t.includes(s) ? t.split(s).join('[redacted]') : t), text);
  return (entry) => {
    // A copy only when a field must change (the entries are the relay's own, built per call): the
    // common entry goes to the sink as it is, without a spread copy per request.
    let clean: Record<string, unknown> | undefined;
    for (const k in entry) {
      const v = (entry as unknown as Record<string, unknown>)[k];
      if (typeof v !== 'string') continue;
      const s = scrub(v);
      if (s === v) continue;
      clean ??= Object.assign({}, entry) as unknown as Record<string, unknown>;
      clean[k] = s;
    }
    sink((clean ?? entry) as RelayLogEntry);
  };
}
