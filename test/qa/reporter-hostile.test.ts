import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import VoiceReporter from '../../qa/src/reporter/index.js';
import { renderHtml } from '../../qa/src/reporter/html.js';
import { renderLoadHtml } from '../../qa/src/reporter/load-html.js';
import { buildLoadReport, parseCallRecords } from '../../qa/src/reporter/load-model.js';
import { buildSummary, type CollectedTest } from '../../qa/src/reporter/summary.js';
import type { LoadCallRecord } from '../../qa/src/load/call-log.js';
import type { CallTurn, VoiceCallEvidence } from '../../qa/src/types.js';

// issue 46: the HTML reporter put values of voice-call.json into the page unescaped, read it with a
// bare JSON.parse, and one malformed field crashed onEnd (no report at all). Every field is checked
// at the edge now (qa/src/reporter/evidence-schema.ts), a malformed attachment is named on its test's
// card, and the rest of the run is reported.

const XSS = '<img src=x onerror=alert(1)>';
const SVG = '<svg onload=alert(1)>';

const turn = (id: number): CallTurn => ({
  id, input: 'text', question: `question ${id}`, answer: 'a two-year warranty', messageId: `m-${id}`, firstResponseMs: 120, agentBuildMs: 0,
  interrupted: false, interruptedBy: null, falseInterruptions: 0, completedAt: '2026-01-01T00:00:00.000Z', perceivedLatencyMs: 300,
  timing: { speechEndAt: null, endpointingMs: null, serviceMs: 120, networkMs: null, bufferingMs: null, playbackMs: null },
});
const quality = { mos: { mean: 4.2 }, rttMs: { p95: 40 }, packetLossPct: { max: 0 }, reconnects: 0 };
const good = (call: number): VoiceCallEvidence => ({
  kind: 'kb-voice-qa/call', version: 1, call, turns: [turn(1)], audio: [], quality: quality as VoiceCallEvidence['quality'],
  report: { sessionId: `s-${call}`, aiId: 'robot', turns: [turn(1)], usage: null, cost: null, audio: [], quality: quality as VoiceCallEvidence['quality'], errors: {}, interruptions: { byCaller: 0, byApp: 0, false: 0 } } as unknown as VoiceCallEvidence['report'],
  latency: { firstResponseMs: [120], perceivedLatencyMs: [300] },
});

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Runs the reporter over one test whose attachments are these bodies; resolves with index.html and summary.json. */
async function report(bodies: string[]): Promise<{ html: string; summary: { calls: unknown[] } }> {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kb-voice-qa-reporter-'));
  const reporter = new VoiceReporter({ outputFolder: dir });
  reporter.onBegin({ configFile: path.join(dir, 'playwright.config.ts'), version: '1.65.0', shard: null } as never);
  const test = { id: 't1', titlePath: () => ['', 'a.spec.ts', 'calls'], expectedStatus: 'passed' };
  const result = { status: 'passed', errors: [], attachments: bodies.map((body) => ({ name: 'voice-call.json', contentType: 'application/json', body: Buffer.from(body) })) };
  reporter.onTestEnd(test as never, result as never);
  await reporter.onEnd({ status: 'passed' } as never);
  return { html: readFileSync(path.join(dir, 'index.html'), 'utf8'), summary: JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) };
}

describe('kb-voice-qa reporter: hostile and malformed voice-call.json', () => {
  it('a call number, RTT, loss or reconnect count that is markup never reaches the page as markup', async () => {
    const hostile = [
      { ...good(1), call: XSS },
      { ...good(2), quality: { ...quality, rttMs: { p95: SVG } } },
      { ...good(3), quality: { ...quality, packetLossPct: { max: XSS } } },
      { ...good(4), quality: { ...quality, reconnects: SVG } },
    ];
    const { html, summary } = await report([...hostile.map((e) => JSON.stringify(e)), JSON.stringify(good(5))]);
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<svg onload');
    expect(html.match(/is malformed and left out/g)).toHaveLength(4);
    expect(html).toContain('Call 5');
    expect(summary.calls).toHaveLength(1);
  });

  it('a non-numeric mos.mean, a null turns and a body that is not JSON are reported as such, and the rest is kept', async () => {
    const { html, summary } = await report([
      JSON.stringify({ ...good(1), quality: { ...quality, mos: { mean: 'high' } } }),
      JSON.stringify({ ...good(2), turns: null }),
      '{"kind":"kb-voice-qa/call", cut mid-write',
      JSON.stringify(good(4)),
    ]);
    expect(html.match(/is malformed and left out/g)).toHaveLength(3);
    expect(html).toContain('voice-call.json #1 is malformed and left out: quality.mos.mean');
    expect(html).toContain('voice-call.json #2 is malformed and left out: turns');
    expect(html).toContain('voice-call.json #3 is malformed and left out: not JSON');
    expect(html).toContain('Call 4');
    expect(summary.calls).toHaveLength(1);
  });

  it('escapes every value even where the schema was bypassed (renderHtml called directly)', () => {
    const bad = { ...good(1), call: XSS, quality: { mos: { mean: 4 }, rttMs: { p95: SVG }, packetLossPct: { max: XSS }, reconnects: SVG } } as unknown as VoiceCallEvidence;
    const tests: CollectedTest[] = [{ test: 't', status: 'passed', expected: true, file: 'a.spec.ts', errors: [], calls: [{ evidence: bad, audio: [] }] }];
    const html = renderHtml(buildSummary(tests), tests);
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<svg onload');
  });
});

describe('kb-voice-qa load report: recordings from the service', () => {
  const record = (audio: unknown[]) => JSON.stringify({
    kind: 'kb-voice-qa/load-call', version: 1, caller: 'node', scenario: 'warranty', userIdentifier: 'load-1', startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1000, sessionId: 's-1', connectMs: 900, status: 'ok', error: null, mos: 4.1, audio,
    turns: [{ id: 1, input: 'voice', question: 'q', answer: 'a', firstResponseMs: 100, perceivedLatencyMs: 400, interrupted: false, agentBuildMs: 0 }],
  });
  const page = (calls: string) => renderLoadHtml(buildLoadReport({ aggregate: { counters: {}, summaries: {} }, intermediate: [] }, parseCallRecords(calls)), 'out.json');

  it('links only http(s) recordings: a javascript: URL is shown as text, not as a link', () => {
    const html = page(record([{ segment: 0, url: 'javascript:alert(document.cookie)' }, { segment: 1, url: 'https://storage.example/seg-1.wav?sig=1' }]));
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).toContain('segment 0 (link refused)');
    expect(html).toContain('href="https://storage.example/seg-1.wav?sig=1"');
  });

  it('a segment that is markup is not a call record (the line is skipped), and escaped where rendered', () => {
    expect(parseCallRecords(record([{ segment: SVG, url: 'https://storage.example/x.wav' }]))).toEqual([]);
    const forged = JSON.parse(record([])) as LoadCallRecord;
    const html = renderLoadHtml(buildLoadReport({ aggregate: { counters: {}, summaries: {} }, intermediate: [] }, [{ ...forged, audio: [{ segment: SVG as unknown as number, url: 'https://storage.example/x.wav' }] }]), 'out.json');
    expect(html).not.toContain('<svg onload');
  });
});
