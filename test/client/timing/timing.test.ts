import { afterEach, describe, expect, it } from 'vitest';
import { VoiceSession, type Turn } from '../../../src/client/index.js';
import { TurnTimeline } from '../../../src/client/timing/timeline.js';
import { Heartbeat } from '../../../src/client/heartbeat.js';
import { TIMING_PHASES, turnTiming, type TurnMarks } from '../../../src/client/timing/phases.js';
import { FakeClock, ScriptedService } from '../../../src/testing/index.js';

const completed = (turnId: number, input: 'voice' | 'text', firstResponseMs: number | null) => ({
  v: 1, type: 'turn.completed', turn_id: turnId, message_id: `m${turnId}`, input, question: 'q', answer: 'a',
  first_response_ms: firstResponseMs, agent_build_ms: 0, input_duration_ms: 900, output_duration_ms: 900, interrupted: false,
} as const);

describe("the heartbeat's clock offset (pong.at_ms)", () => {
  const beat = () => {
    const clock = new FakeClock(0);
    return { clock, heartbeat: new Heartbeat({ clock, intervalMs: 250, send: () => undefined, onDead: () => undefined }) };
  };

  it('trusts the pong with the shortest round trip and keeps the least round trip', async () => {
    const { clock, heartbeat } = beat();
    heartbeat.start();
    expect(heartbeat.rttMs).toBeNull();
    expect(heartbeat.offsetMs).toBeNull();
    await clock.advance(1300);
    heartbeat.alive(1000, 5500); // a queued pong: 300 ms round trip
    await clock.advance(740);
    heartbeat.alive(2000, 6400); // 40 ms: offset 6400 - 2020 = 4380
    await clock.advance(1060);
    heartbeat.alive(3000, 7500); // 100 ms
    heartbeat.alive(3090); // 10 ms, but without the service's time
    expect(heartbeat.rttMs).toBe(10);
    expect(heartbeat.offsetMs).toBe(4380);
    heartbeat.start(); // a new connection: its path and the service's clock may differ
    expect(heartbeat.offsetMs).toBeNull();
    heartbeat.stop();
  });
});

describe('turnTiming', () => {
  const marks = (m: Partial<TurnMarks>): TurnMarks => ({
    speechEndAt: 1000, detectedAt: 1620, firstResponseMs: 50, heardAt: 1760, bufferingMs: 40, playbackMs: 12, ...m,
  });

  it('splits the perceived latency into five phases that add up to it', () => {
    const { timing, perceivedLatencyMs } = turnTiming(marks({}));
    expect(timing).toEqual({ speechEndAt: 1000, endpointingMs: 620, serviceMs: 50, networkMs: 50, bufferingMs: 40, playbackMs: 12 });
    expect(perceivedLatencyMs).toBe(772);
    const sum = TIMING_PHASES.reduce((a, p) => a + timing[`${p}Ms`]!, 0);
    expect(sum).toBe(perceivedLatencyMs);
  });

  it('keeps estimated marks in order between the measured ends (no negative phase, the sum holds)', () => {
    // the detection estimate came after the first sound (offset error), the buffer's mean is longer than the gap
    const { timing, perceivedLatencyMs } = turnTiming(marks({ detectedAt: 1800, bufferingMs: 900 }));
    expect(TIMING_PHASES.every((p) => timing[`${p}Ms`] !== null && timing[`${p}Ms`]! >= 0)).toBe(true);
    expect(TIMING_PHASES.reduce((a, p) => a + timing[`${p}Ms`]!, 0)).toBe(perceivedLatencyMs);
    expect(timing.endpointingMs).toBe(760);
  });

  it('is null where not measurable: no level meter, no service detection, no stats, no output latency', () => {
    expect(turnTiming(marks({ speechEndAt: null }))).toEqual({
      timing: { speechEndAt: null, endpointingMs: null, serviceMs: 50, networkMs: null, bufferingMs: 40, playbackMs: 12 }, perceivedLatencyMs: null,
    });
    const noDetection = turnTiming(marks({ detectedAt: null, playbackMs: null }));
    expect(noDetection.timing).toEqual({ speechEndAt: 1000, endpointingMs: null, serviceMs: 50, networkMs: null, bufferingMs: 40, playbackMs: null });
    expect(noDetection.perceivedLatencyMs).toBe(760); // without the output's latency: up to the sound leaving the receiver
    // No jitter-buffer figure: network holds the whole delivery, so the phases still add up (CONTRACT).
    const noBuffer = turnTiming(marks({ bufferingMs: null }));
    expect(noBuffer.timing).toMatchObject({ networkMs: 90, bufferingMs: null, endpointingMs: 620 });
    expect(TIMING_PHASES.reduce((a, p) => a + (noBuffer.timing[`${p}Ms`] ?? 0), 0)).toBe(noBuffer.perceivedLatencyMs);
  });
});

describe('TurnTimeline', () => {
  const ends = { speechEndAt: 1000, heardAt: 1760 };
  const timeline = (now: () => number, rttMs: number | null, offsetMs: number | null) =>
    new TurnTimeline({ now, rttMs: () => rttMs, offsetMs: () => offsetMs, marks: () => ends, bufferingMs: () => null, playbackMs: () => null });

  it('maps the service detection with the clock offset (v1), or takes arrival less half a round trip (no service time)', () => {
    let now = 1700; // the event arrived late (its sender was busy): its own time counts
    const v1 = timeline(() => now, 40, 2480);
    v1.event({ v: 1, type: 'input.speech_stopped', turn_id: 1, at_ms: 1620 + 2480, duration_ms: 900 });
    expect(v1.finished(completed(1, 'voice', 50)).timing).toMatchObject({ endpointingMs: 620, serviceMs: 50 });

    now = 1650;
    const openai = timeline(() => now, 60, null);
    openai.event({ v: 1, type: 'input.speech_stopped', turn_id: 1, at_ms: 900, duration_ms: 900 }); // at_ms: another clock
    expect(openai.finished(completed(1, 'voice', 50)).timing.endpointingMs).toBe(620);
  });

  it('gives typed questions no endpointing and no perceived latency; a lost connection forgets its turns', () => {
    const typed = new TurnTimeline({ now: () => 0, rttMs: () => null, offsetMs: () => null, marks: () => null, bufferingMs: () => 30, playbackMs: () => 10 });
    expect(typed.finished(completed(1, 'text', 80))).toEqual({
      timing: { speechEndAt: null, endpointingMs: null, serviceMs: 80, networkMs: null, bufferingMs: 30, playbackMs: 10 }, perceivedLatencyMs: null,
    });
    const t = timeline(() => 1620, 0, null);
    t.event({ v: 1, type: 'input.speech_stopped', turn_id: 2, at_ms: 0, duration_ms: 900 });
    t.lost();
    expect(t.finished(completed(2, 'voice', 50)).timing.endpointingMs).toBeNull();
  });
});

describe('Turn.timing in a session (scripted service, fake time)', () => {
  let session: VoiceSession | undefined;
  afterEach(async () => {
    await session?.end({ mode: 'immediate' });
    session = undefined;
  });

  it('measures speech end and first sound on 20 ms readings, the quiet end of a sentence still speech', async () => {
    const clock = new FakeClock(0);
    const scripted = new ScriptedService({ clock });
    let input = 0;
    let output = 0;
    session = new VoiceSession({
      aiId: 'robot-1', ...scripted.sessionOptions, heartbeatIntervalMs: 0,
      levelMeter: (stream) => ({ read: () => (stream === session!.remoteStream ? output : input), close: () => undefined }),
    });
    const turns: Turn[] = [];
    session.on('turn', (t) => turns.push(t));
    await session.start();
    await clock.settle();
    const t0 = clock.now();
    scripted.send({ type: 'pong', t: t0 - 40, at_ms: 10_000 }); // rtt 40: offset 10000 - (t0 - 20)
    const toService = (clientMs: number) => clientMs + 10_000 - (t0 - 20);
    input = 0.8; // −12 dBFS
    await clock.advance(1000);
    input = 0.45; // the sentence's last syllable, −33 dBFS: under the old fixed −30 dBFS, within 24 dB of the peak
    await clock.advance(100);
    const speechEnd = clock.now();
    input = 0;
    await clock.advance(620);
    scripted.send({ type: 'input.speech_started', turn_id: 1, at_ms: toService(t0) });
    scripted.send({ type: 'input.speech_stopped', turn_id: 1, at_ms: toService(speechEnd + 600), duration_ms: 1100 });
    await clock.advance(80);
    output = 0.6; // the answer's first sound out of the receiver: 700 ms after the speech end
    await clock.advance(20);
    scripted.send({ type: 'transcript.final', turn_id: 1, role: 'user', text: 'q' });
    scripted.send(completed(1, 'voice', 50));
    expect(turns).toHaveLength(1);
    // heard on the reading at speechEnd + 720 (the first at or after the sound came)
    expect(turns[0]!.perceivedLatencyMs).toBe(720);
    expect(turns[0]!.timing).toEqual({ speechEndAt: speechEnd, endpointingMs: 600, serviceMs: 50, networkMs: 70, bufferingMs: null, playbackMs: null }); // 600 + 50 + 70 = 720: network holds the delivery with no jitter-buffer figure
  });
});
