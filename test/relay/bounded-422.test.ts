import { describe, expect, it } from 'vitest';
import { createRelay } from '../../src/relay/index.js';
import { MAX_DETAIL_ITEMS, MAX_DETAIL_TEXT } from '../../src/relay/errors.js';
import { HTTPValidationError } from '../../src/schemas/index.js';
import { fakeUpstreamFor, KEY, ROBOT, sendJson } from './helpers.js';

// Issue 46 (relay): a 14 KB query of unknown keys got an 89 KB 422.

const upstream = fakeUpstreamFor((_req, res) => sendJson(res, 200, {}));
const relay = () => createRelay({ upstream: upstream.url, apiKey: KEY, logger: () => {} });
const sessionMessages = `http://relay.test/api/voice/v1/${ROBOT}/session.messages`;

describe('a 422 answer is bounded', () => {
  it(`a 14 KB query of unknown keys answers at most ${MAX_DETAIL_ITEMS} items, the last saying how many were left out`, async () => {
    const query = Array.from({ length: 1_500 }, (_, i) => `k${String(i).padStart(6, '0')}=1`).join('&');
    expect(query.length).toBeGreaterThan(14_000);
    const res = await relay().fetch(new Request(`${sessionMessages}?session_id=s&${query}`));
    expect(res.status).toBe(422);
    const text = await res.text();
    expect(text.length).toBeLessThan(4_000);
    const { detail } = HTTPValidationError.parse(JSON.parse(text));
    expect(detail).toHaveLength(MAX_DETAIL_ITEMS);
    expect(detail[0]).toEqual({ loc: ['query', 'k000000'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
    expect(detail.at(-1)).toEqual({ loc: ['query'], msg: `${1_500 - (MAX_DETAIL_ITEMS - 1)} more errors not shown (at most ${MAX_DETAIL_ITEMS} are listed)`, type: 'too_many_errors' });
    expect(upstream.seen).toHaveLength(0);
  });

  it(`a long unknown key is cut to ${MAX_DETAIL_TEXT} characters in the answer`, async () => {
    const res = await relay().fetch(new Request(`${sessionMessages}?session_id=s&${'k'.repeat(10_000)}=1`));
    expect(res.status).toBe(422);
    const { detail } = HTTPValidationError.parse(await res.json());
    expect(detail).toEqual([{ loc: ['query', `${'k'.repeat(MAX_DETAIL_TEXT - 1)}…`], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }]);
  });

  it('a few errors answer as before, every one listed', async () => {
    const res = await relay().fetch(new Request(`${sessionMessages}?session_id=s&a=1&b=2`));
    const { detail } = HTTPValidationError.parse(await res.json());
    expect(detail.map((d) => d.loc)).toEqual([['query', 'a'], ['query', 'b']]);
  });

  it('an upstream 422 with 500 items is bounded the same way', async () => {
    upstream.setHandler((_req, res) => sendJson(res, 422, { detail: Array.from({ length: 500 }, (_, i) => ({ loc: ['body', `f${i}`], msg: 'Field required', type: 'missing' })) }));
    const res = await relay().fetch(new Request(`${sessionMessages}?session_id=s`));
    expect(res.status).toBe(422);
    const body = await res.json();
    const { detail } = HTTPValidationError.parse(body);
    expect(detail).toHaveLength(MAX_DETAIL_ITEMS);
    expect(detail.at(-1)).toMatchObject({ loc: ['body'], msg: `${500 - (MAX_DETAIL_ITEMS - 1)} more errors not shown (at most ${MAX_DETAIL_ITEMS} are listed)` });
  });
});
