// kb-voice-qa/artillery's Node callers against a real emulator and relay on loopback, driven as
// Artillery drives a `function` step (a context with vars, an event emitter): four calls at once.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from 'kb-voice-emulator';
import { createApiClient } from 'kb-voice/api';
import { startLoadStack, type LoadStack } from './helpers/load-stack.js';
import { nodeCall, type ArtilleryEvents } from '../../qa/src/load/artillery.js';
import type { LoadCallRecord } from '../../qa/src/load/call-log.js';

let stack: LoadStack;
let emu: Emulator;
let dir: string;

beforeAll(async () => {
  // A cold robot whose build outlasts a spoken question (the session's own warmup at connect would
  // not finish first): the first call of the run warms it (E1 through the relay) before it connects.
  stack = await startLoadStack({ agentBuildMs: 4_000, dirPrefix: 'kb-voice-qa-load-' });
  ({ emu, dir } = stack);
}, 30_000);

afterAll(async () => {
  await stack?.close();
});

/** Records what a scenario emits, as Artillery's per-VU emitter. */
function recorder() {
  const samples: Array<{ kind: string; name: string; value: number | undefined }> = [];
  const events: ArtilleryEvents = { emit: (kind, name, value) => samples.push({ kind, name, value }) };
  const of = (name: string) => samples.filter((s) => s.name === name).map((s) => s.value);
  return { events, samples, of };
}

const vars = (uuid: string, callsFile: string) => ({
  target: stack.target, emulatorUrl: emu.url, $uuid: uuid, userPrefix: 'load', callsFile,
});

describe('nodeCall (kb-voice-qa/artillery)', () => {
  it('runs four concurrent calls, each as its own user, and emits the voice.* metrics', async () => {
    const callsFile = path.join(dir, 'calls.jsonl');
    const scenario = nodeCall(async function warranty(call) {
      await call.say('How long is the warranty?');
      await call.expectAnswer(/two-year/i, { within: 20_000 });
      await call.type('How much do replacement filters cost?');
      await call.expectAnswer('980 yen', { within: 20_000 });
    });
    const rec = recorder();
    await Promise.all([1, 2, 3, 4].map((i) => scenario({ vars: vars(`vu-${i}`, callsFile) }, rec.events)));

    expect(rec.of('voice.calls')).toEqual([1, 1, 1, 1]);
    expect(rec.of('voice.connect_ms')).toHaveLength(4);
    expect(rec.of('voice.turns')).toHaveLength(8);
    expect(rec.of('voice.first_response_ms')).toHaveLength(8);
    // Spoken turns: the caller's own measure (its speech end to the first answer audio).
    expect(rec.of('voice.perceived_latency_ms').length).toBeGreaterThanOrEqual(4);
    expect(rec.of('voice.answers_cut').every((v) => v === 0)).toBe(true);
    expect(rec.of('voice.turns_failed').every((v) => v === 0)).toBe(true);
    expect(rec.of('voice.generator_cpu_pct').length).toBeGreaterThanOrEqual(1);
    expect(rec.of('voice.active_calls')).toHaveLength(4);

    const records = readFileSync(callsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LoadCallRecord);
    expect(records.map((r) => r.userIdentifier).sort()).toEqual(['load-vu-1', 'load-vu-2', 'load-vu-3', 'load-vu-4']);
    expect(records.every((r) => r.status === 'ok' && r.turns.length === 2)).toBe(true);
    // The calls file says what the metric counted (issue 46: every voice turn had perceivedLatencyMs: null
    // there while voice.perceived_latency_ms had samples): each perceived sample is some turn's value.
    const perceivedInFile = records.flatMap((r) => r.turns.map((t) => t.perceivedLatencyMs)).filter((v): v is number => typeof v === 'number');
    expect(perceivedInFile.sort((a, b) => a - b)).toEqual(rec.of('voice.perceived_latency_ms').map(Number).sort((a, b) => a - b));
    expect(records.flatMap((r) => r.turns.filter((t) => t.input === 'voice').map((t) => t.perceivedLatencyMs)).every((v) => typeof v === 'number')).toBe(true);
    // No turn paid the robot's build: the first call warmed it.
    expect(records.flatMap((r) => r.turns.map((t) => t.agentBuildMs))).toEqual(new Array(8).fill(0));
    // The service stored each session under its caller's identity.
    const costs = await createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey }).realtime.sessionCosts(emu.fixtures.robotId, {});
    const users = new Map(costs.sessions.map((s) => [s.session_id, s.user_identifier]));
    expect(records.map((r) => users.get(r.sessionId!)).sort()).toEqual(['load-vu-1', 'load-vu-2', 'load-vu-3', 'load-vu-4']);
  }, 90_000);

  it('counts a wrong answer as errors.voice_answer_mismatch and a failed turn, with the transcript in the call record', async () => {
    const callsFile = path.join(dir, 'mismatch.jsonl');
    const scenario = nodeCall(async function wrong(call) {
      await call.type('How much do replacement filters cost?');
      await call.expectAnswer(/flux capacitor/i, { within: 20_000 });
    });
    const rec = recorder();
    const error = await scenario({ vars: vars('vu-x', callsFile) }, rec.events).then(() => null, (e: unknown) => e as Error & { code: string });
    expect(error?.code).toBe('voice_answer_mismatch');
    expect(error?.message.split('\n')[0]).toBe('voice_answer_mismatch');
    expect(rec.of('voice.turns_failed')).toContain(1);
    expect(rec.of('voice.calls_failed')).toContain(1);
    const [record] = readFileSync(callsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LoadCallRecord);
    expect(record!.status).toBe('voice_answer_mismatch');
    expect(record!.turns[0]!.answer).toMatch(/980 yen/);
    expect(record!.error).toMatch(/flux capacitor/);
  }, 60_000);

  it('counts an answer cut by the next question as errors.voice_answer_cut, whatever its text', async () => {
    const callsFile = path.join(dir, 'cut.jsonl');
    const scenario = nodeCall(async function cut(call) {
      await call.type('Can I descale with vinegar?');
      await call.type('How much do replacement filters cost?'); // replaces the first answer (app)
      await call.expectAnswer(/(?:)/, { within: 20_000 }); // any text: only the cut fails it
    });
    const rec = recorder();
    const error = await scenario({ vars: vars('vu-cut', callsFile) }, rec.events).then(() => null, (e: unknown) => e as Error & { code: string });
    expect(error?.code).toBe('voice_answer_cut');
    expect(error?.message).toMatch(/the answer was cut by the app: the caller did not hear it whole; call\.nextTurn\(\) if the test expects that/);
    const [record] = readFileSync(callsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LoadCallRecord);
    expect(record!.status).toBe('voice_answer_cut');
    expect(record!.turns[0]).toMatchObject({ interrupted: true });
  }, 60_000);
});
