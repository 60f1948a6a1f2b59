import { describe, expect, it } from 'vitest';
import { createLog } from '../../src/relay/log-format.js';
import type { RelayLogEntry } from '../../src/relay/index.js';

// The relay's logger scrubs every string field of an entry of the key and the grant secret. It
// copies an entry only when a field must change (no copy per request for the common entry).
describe('createLog', () => {
  const KEY = 'sk-log-scrub-KEY-8c1f';
  const SECRET = 'grant-secret-77';

  it('replaces each secret in every string field, on a copy', () => {
    const seen: RelayLogEntry[] = [];
    const log = createLog((e) => seen.push(e), [KEY, SECRET]);
    const entry: RelayLogEntry = { level: 'error', message: `failed with ${KEY}`, requestId: 'r1', status: 502, reason: `upstream said ${SECRET} and ${KEY} twice: ${KEY}` };
    log(entry);
    expect(seen[0]).toEqual({ level: 'error', message: 'failed with [redacted]', requestId: 'r1', status: 502, reason: 'upstream said [redacted] and [redacted] twice: [redacted]' });
    expect(seen[0]).not.toBe(entry);
    expect(entry.reason).toContain(KEY);
  });

  it('passes an entry without a secret on as it is', () => {
    const seen: RelayLogEntry[] = [];
    const log = createLog((e) => seen.push(e), [KEY]);
    const entry: RelayLogEntry = { level: 'info', message: 'request', requestId: 'r2', method: 'GET', endpoint: 'E13', status: 200, durationMs: 3, role: 'user' };
    log(entry);
    expect(seen[0]).toBe(entry);
    expect(seen[0]).toEqual({ level: 'info', message: 'request', requestId: 'r2', method: 'GET', endpoint: 'E13', status: 200, durationMs: 3, role: 'user' });
  });
});
