import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { TRANSIENT } from '../../src/api/retryable.js';
import { VoiceSession, type VoiceSessionError } from '../../src/client/index.js';
import { classifyFailure, fromApiFailure } from '../../src/client/errors.js';
import { ScriptedService } from '../../src/testing/index.js';

// Retry-After reaches the caller on both refusals that carry it (429 rate_limited, 503
// service_unavailable, e.g. a service at capacity), taken from the ApiError (parsed once by the API
// client), and one classifier says which failures are worth repeating.

async function signalingFails(failure: { status: number; retryAfterSeconds?: number }): Promise<VoiceSessionError> {
  const scripted = new ScriptedService();
  scripted.failSignaling(failure);
  const session = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions });
  return (await session.start().catch((e: unknown) => e)) as VoiceSessionError;
}

describe('Retry-After and HTTP outcomes', () => {
  it('503 with Retry-After is service_unavailable carrying retryAfterMs', async () => {
    const err = await signalingFails({ status: 503, retryAfterSeconds: 5 });
    expect(err).toMatchObject({ code: 'service_unavailable', status: 503, retryAfterMs: 5000 });
    expect(err.message).toContain('retry after 5000 ms');
  });

  it('429 with Retry-After is rate_limited carrying retryAfterMs; without one, none', async () => {
    expect(await signalingFails({ status: 429, retryAfterSeconds: 2 })).toMatchObject({ code: 'rate_limited', retryAfterMs: 2000 });
    expect((await signalingFails({ status: 429 })).retryAfterMs).toBeUndefined();
  });

  it('retryAfterMs is read from the ApiError only, never from another status', () => {
    const with502 = fromApiFailure(new ApiError('http_error', 'bad gateway', { status: 502, retryAfterMs: 1000 }), 'Signaling failed');
    expect(with502).toMatchObject({ code: 'service_unavailable', retryAfterMs: undefined });
  });

  it('classifyFailure: no answer, 408, 429 and 5xx may pass; any other 4xx is a refusal', () => {
    const retryable = (err: unknown) => classifyFailure(err).retryable;
    expect(retryable(new TypeError('fetch failed'))).toBe(true);
    expect(retryable(new ApiError('timeout', 't'))).toBe(true);
    for (const status of [408, 429, 500, 502, 503, 504]) expect(retryable({ status })).toBe(true);
    for (const status of [400, 401, 403, 404, 405, 409, 422]) expect(classifyFailure({ status })).toEqual({ status, retryable: false });
  });

  it("classifyFailure follows the API client's table: a 501 or 505 is a refusal, and the Retry-After comes along", () => {
    for (const status of [301, 501, 505]) expect(classifyFailure({ status }).retryable, String(status)).toBe(false);
    for (const status of TRANSIENT.keys()) expect(classifyFailure({ status }).retryable, String(status)).toBe(true);
    expect(classifyFailure(new ApiError('http_error', 'busy', { status: 503, retryAfterMs: 3000 }))).toEqual({ status: 503, retryable: true, retryAfterMs: 3000 });
  });
});
