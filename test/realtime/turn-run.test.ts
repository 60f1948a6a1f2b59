import { describe, expect, it } from 'vitest';
import type { ServerEvent } from 'kb-voice/schemas';
import type { Brain } from '../../emulator/src/realtime/brain.js';
import type { Recorder } from '../../emulator/src/realtime/recorder.js';
import { runTurn, type TurnDeps } from '../../emulator/src/realtime/turn.js';
import { TurnController, type TurnInput } from '../../emulator/src/realtime/turn-controller.js';

// One turn's run under the real turn controller (no WebRTC): a brain whose synthesis waits until the
// turn's signal aborts it, as Flite's pool does (a queued job rejects with the signal's reason).

/** A synthesis that never finishes: it rejects with the signal's reason once the turn is cut. */
const untilAborted = (signal: AbortSignal) => new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));

const QUESTION: TurnInput = { kind: 'text', turnId: 1, text: 'How long is the warranty?', endOfInput: 0 };

function harness() {
  const events: ServerEvent[] = [];
  const recorded: Array<{ interrupted: boolean; firstResponseMs: number | null }> = [];
  let synthesizing!: () => void;
  const synthesisStarted = new Promise<void>((resolve) => (synthesizing = resolve));
  const brain: Brain = {
    recognize: async () => null,
    answer: async () => ({ answer: 'The warranty lasts two years. Keep the receipt.' }),
    synthesize: ({ signal }) => {
      synthesizing();
      return untilAborted(signal);
    },
  };
  const recorder = {
    recordAudio: async () => undefined,
    recordTurn: (turn: { interrupted: boolean; firstResponseMs: number | null }) => {
      recorded.push(turn);
      return { id: 'm1' };
    },
  } as unknown as Recorder;
  const deps: TurnDeps = {
    brain, recorder, agents: { ensureBuilt: async () => ({ paidMs: 0 }) } as unknown as TurnDeps['agents'],
    robotId: 'r1', sessionId: 's1', language: 'en', outputSampleRate: 48_000,
    send: (e) => events.push(e), isOpen: () => true,
    stream: () => {
      throw new Error('no audio was ready: nothing may be streamed');
    },
  };
  const failed: string[] = [];
  const controller = new TurnController({
    firstTurnId: 1,
    run: (input, turn) => runTurn(input, turn, deps),
    failed: (_, error) => failed.push((error as Error).message),
  });
  return { deps, controller, events, recorded, failed, synthesisStarted };
}

describe('runTurn', () => {
  it('an interrupt while the first sentence is synthesized cuts the turn, it does not fail it (busy-core run, 2026-12-07)', async () => {
    const { controller, events, recorded, failed, synthesisStarted } = harness();
    controller.start(QUESTION);
    await synthesisStarted;
    expect(controller.interrupt()).toBe(true);
    await controller.whenIdle();
    expect(failed).toEqual([]);
    expect(recorded).toMatchObject([{ interrupted: true, firstResponseMs: null }]);
    const completed = events.find((e) => e.type === 'turn.completed');
    expect(completed).toMatchObject({ interrupted: true, first_response_ms: null });
  });

  it('an interrupt while a later sentence is synthesized: the audio played is stopped as interrupted, the turn completes interrupted', async () => {
    const { deps, controller, events, recorded, failed } = harness();
    let sentences = 0;
    let laterSentence!: () => void;
    const laterStarted = new Promise<void>((resolve) => (laterSentence = resolve));
    deps.brain.synthesize = ({ signal }) => {
      if (++sentences === 1) return Promise.resolve({ samples: new Int16Array(4800), sampleRate: 48_000 });
      laterSentence();
      return untilAborted(signal);
    };
    let end!: (r: { reason: 'interrupted'; sentMs: number }) => void;
    const done = new Promise<{ reason: 'interrupted'; sentMs: number }>((resolve) => (end = resolve));
    deps.stream = (hooks) => {
      hooks.onFirstFrame?.(5);
      const playback = { append() {}, finish() {}, pause() {}, resume() {}, paused: false, whenBufferedBelow: async () => {}, done, stop: () => end({ reason: 'interrupted', sentMs: 60 }) } as unknown as ReturnType<TurnDeps['stream']>;
      controller.active!.playback = playback; // as the connection's stream hook does
      return playback;
    };
    controller.start(QUESTION);
    await laterStarted;
    expect(controller.interrupt()).toBe(true);
    await controller.whenIdle();
    expect(failed).toEqual([]);
    expect(events.filter((e) => e.type === 'output.speech_stopped')).toMatchObject([{ reason: 'interrupted' }]);
    expect(events.some((e) => e.type === 'error')).toBe(false);
    expect(recorded).toMatchObject([{ interrupted: true, firstResponseMs: 5 }]);
  });

  it('a synthesis that fails on its own still fails the turn', async () => {
    const { deps, controller, failed } = harness();
    deps.brain.synthesize = async () => {
      throw new Error('flite crashed');
    };
    controller.start(QUESTION);
    await controller.whenIdle();
    expect(failed).toEqual(['flite crashed']);
  });
});
