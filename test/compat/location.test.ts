/**
 * The signaling Location followed as WHIP says (RFC 9725; #37 7): the resource the 201 names,
 * relative or absolute on the same origin, gets the session's PATCHes; another origin is refused.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import { AI, responses } from '../helpers/samples.js';
import { json, raw, useUpstream, type Upstream } from './upstream.js';

let up: Upstream;
let api: ApiClient;
useUpstream({ path: '/prefix', apiKey: 'sk-test' }, (u, a) => {
  up = u;
  api = a;
});
// Wherever the resource is, it takes the PATCH (204, as the emulator's does).
beforeEach(() => up.on((req) => req.method === 'PATCH', raw('', 204)));

const offer = { type: 'offer', sdp: 'v=0\r\n' } as const;
const CANDIDATE = 'a=candidate:1 1 udp 2130706431 192.0.2.1 5000 typ host\r\n';
const lastPatch = () => up.seen.filter((r) => r.method === 'PATCH').at(-1);

describe('signaling resource', () => {
  it('a relative Location elsewhere on the service gets the PATCH', async () => {
    up.next(json(responses.RS, 201, { location: '/whip/resources/abc' }));
    const answer = await api.realtime.connect(AI, offer);
    await api.realtime.trickle(AI, answer.session_id, CANDIDATE);
    expect(lastPatch()).toMatchObject({ path: '/whip/resources/abc', body: CANDIDATE });
    expect(lastPatch()!.headers['content-type']).toBe('application/trickle-ice-sdpfrag');
  });

  it('a Location relative to the offer\'s URL (no leading slash) is resolved against it', async () => {
    up.next(json(responses.RS, 201, { location: 'sessions-x/abc' }));
    const answer = await api.realtime.connect(AI, offer);
    await api.realtime.trickle(AI, answer.session_id, CANDIDATE);
    expect(lastPatch()!.path).toBe(`/prefix/v1/robots/${AI}/realtime/sessions-x/abc`);
  });

  it('an absolute Location on the same origin gets the PATCH', async () => {
    up.next(json(responses.RS, 201, { location: `${up.url}/other/abc?token=1` }));
    const answer = await api.realtime.connect(AI, offer);
    await api.realtime.trickle(AI, answer.session_id, CANDIDATE);
    expect(lastPatch()).toMatchObject({ path: '/other/abc' });
    expect(lastPatch()!.query.get('token')).toBe('1');
  });

  it('another origin is refused clearly, and nothing goes there', async () => {
    up.next(json(responses.RS, 201, { location: 'https://elsewhere.example/sessions/abc' }));
    await expect(api.realtime.connect(AI, offer)).rejects.toMatchObject({ code: 'invalid_response', message: expect.stringContaining('another origin') });
  });

  it('without a Location, the path CONTRACT.md fixes is used (by ids)', async () => {
    up.next(json(responses.RS, 201));
    const answer = await api.realtime.connect(AI, offer);
    await api.realtime.trickle(AI, answer.session_id, CANDIDATE);
    expect(lastPatch()!.path).toBe(`/prefix/v1/robots/${AI}/realtime/sessions/sess-1`);
  });

  it('a new answer for the same session (a resumed call) replaces its resource', async () => {
    up.next(json(responses.RS, 201, { location: '/first/abc' }), json(responses.RS, 201, { location: '/second/abc' }));
    await api.realtime.connect(AI, offer);
    await api.realtime.connect(AI, { ...offer, session_id: 'sess-1' });
    await api.realtime.trickle(AI, 'sess-1', CANDIDATE);
    expect(lastPatch()!.path).toBe('/second/abc');
  });
});
