import { describe, expect, it } from 'vitest';
import { createRelay, RelayError, type RelayOptions, type RelayStage } from '../../src/relay/index.js';
import { KEY } from './helpers.js';

// Issue 46 (relay): misspelt options were accepted silently, so the app's own check never ran.

const base: RelayOptions = { upstream: 'http://127.0.0.1:9', apiKey: KEY, secret: 'options-check-deployment-secret', logger: () => {}, robots: '*', authorize: () => ({ userIdentifier: 'alice', role: 'user' }) };
const deny: RelayStage = () => Promise.reject(new RelayError(403, 'denied by the app'));
const create = (more: Record<string, unknown>) => () => createRelay({ ...base, ...more } as RelayOptions);

describe('unknown relay options are a TypeError naming the key and the nearest valid one', () => {
  it.each([
    [{ stages: { beforeAuthorize: [deny] } }, /stages\.beforeAuthorize: did you mean stages\.before\?.*before, afterAuthorize/],
    [{ stages: { after: [deny] } }, /stages\.after: did you mean stages\.afterAuthorize\?/],
    [{ stage: { before: [deny] } }, /option stage: did you mean stages\?/],
    [{ maxSessionPerUser: 1 }, /maxSessionPerUser: did you mean maxSessionsPerUser\?/],
    [{ allowedOrigin: ['https://app.example.com'] }, /allowedOrigin: did you mean allowedOrigins\?/],
    [{ reportWindow: { maxDay: 3 } }, /reportWindow\.maxDay: did you mean reportWindow\.maxDays\?/],
    [{ allowedOrigin: undefined }, /allowedOrigin: did you mean allowedOrigins\?/],
  ])('%j', (more, message) => {
    expect(create(more)).toThrow(TypeError);
    expect(create(more)).toThrow(message);
  });

  it('every documented option is accepted', () => {
    expect(create({ prefix: '/x', authorizeTimeoutMs: 5, maxSessionsPerUser: 2, sessionHoldMs: 10, reportWindow: { defaultDays: 1, maxDays: 2 }, maxUpstreamJsonBytes: 10, openaiSessionFields: [], stages: { before: [], afterAuthorize: [] }, allowedHosts: ['loopback'], allowedOrigins: [], timeoutMs: 5, maxBodyBytes: 5, rateLimit: () => true, fetch })).not.toThrow();
  });
});

describe('a robots list no user can use is refused at start', () => {
  it('robots: [] is a TypeError', () => {
    expect(create({ robots: [] })).toThrow(/robots is empty/);
  });
  it("the quick start's placeholder 'ROBOT_ID' is a TypeError", () => {
    expect(create({ robots: ['ROBOT_ID'] })).toThrow(/placeholder 'ROBOT_ID'/);
    expect(create({ robots: ['6f1c1e0e-3a4b-4c5d-8e9f-0a1b2c3d4e5f'] })).not.toThrow();
  });
});
