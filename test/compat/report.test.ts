/**
 * report() partial (#37 5): each of usage (E13), cost (E12) and audio (E14) present or with its own
 * error; a missing recording (E14 404) is no audio, not an error; a stalled part ends within the
 * API client's budget instead of hanging the report.
 */
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { summarizeQuality } from '../../src/client/quality/report.js';
import { fetchReport, reportWindow, type VoiceReport } from '../../src/client/report.js';
import { AI, responses } from '../helpers/samples.js';
import { json, stall, useUpstream, type Seen, type Upstream } from './upstream.js';

let up: Upstream;
useUpstream({}, (u) => {
  up = u;
});

const is = (fragment: string) => (req: Seen) => req.path.endsWith(fragment);
const E12 = is('/realtime-cost/sessions');
const E13 = is('/realtime-usage');
const E14 = is('/realtime-audio/download');

const report = (timeout = 5_000): Promise<VoiceReport> => {
  const api = createApiClient({ baseUrl: up.url, apiKey: 'sk-test', retry: 0, timeout });
  const started = Date.parse('2026-11-01T10:00:00Z');
  return fetchReport(api, AI, 'sess-1', [], reportWindow(started, started + 60_000), summarizeQuality([], 0));
};

describe('report() parts', () => {
  it('every part present: no errors', async () => {
    const out = await report();
    expect(out.usage).toMatchObject({ session_id: 'sess-1', turn_count: 2 });
    expect(out.cost).toMatchObject({ session_id: 'sess-1', total_cost: 0 });
    expect(out.audio).toHaveLength(1);
    expect(out.errors).toEqual({});
  });

  it('E12 answering 500 keeps usage and audio; cost is null with its error', async () => {
    up.on(E12, json({ detail: 'boom' }, 500));
    const out = await report();
    expect(out.usage).toMatchObject({ session_id: 'sess-1' });
    expect(out.audio).toHaveLength(1);
    expect(out.cost).toBeNull();
    expect(out.errors.cost).toMatchObject({ code: 'report_failed', status: 500 });
    expect(out.errors.usage).toBeUndefined();
  });

  it('E14 404 (no recording) is no audio, not a configuration error', async () => {
    up.on(E14, json({ detail: 'No recording for this session' }, 404));
    const out = await report();
    expect(out.audio).toEqual([]);
    expect(out.errors).toEqual({});
    expect(out.usage).not.toBeNull();
  });

  it('E13 stalled mid-body ends within the budget as its own error; the rest arrive', async () => {
    up.on(E13, stall());
    // 1 s: the other parts must arrive within it, even on a loaded machine.
    const out = await report(1_000);
    expect(out.errors.usage).toMatchObject({ code: 'service_unavailable' });
    expect(out.cost).toMatchObject({ session_id: 'sess-1' });
  });

  it('E13 answering an invalid shape is usage\'s error only', async () => {
    up.on(E13, json({ ...responses.E13, sessions: 'none' }));
    const out = await report();
    expect(out.errors.usage?.cause).toMatchObject({ code: 'invalid_response' });
    expect(out.cost).not.toBeNull();
  });

  it('all three failing rejects (nothing of the service to show)', async () => {
    up.on(() => true, json({ detail: 'down' }, 503));
    await expect(report()).rejects.toMatchObject({ code: 'http_error', status: 503 });
  });
});
