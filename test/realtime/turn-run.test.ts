import { describe, expect, it } from 'vitest';
import type { ServerEvent } from 'kb-voice/schemas';
import type { Brain } from '../../emulator/src/realtime/brain.js';
import type { Recorder } from '../../emulator/src/realtime/recorder.js';
import { runTurn, type TurnDeps } from '../../emulator/src/realtime/turn.js';
import type { ActiveTurn } from '../../emulator/src/realtime/turn-controller.js';

// One turn's run on its own (no WebRTC): a brain whose synthesis waits until the test lets it go or
// the turn's signal aborts it, as Flite's pool does (a queued job rejects with the signal's reason).

function harness() {
  const events: ServerEvent[] = [];
  const recorded: Array<{ interrupted: boolean; firstResponseMs: number | null }> = [];
  let synthesizing!: () => void;
  const synthesisStarted = new Promise<void>((resolve) => (synthesizing = resolve));
  const brain: Brain = {
    recognize: async () => null,
    answer: async () => ({ answer: 'The warranty lasts two years. Keep the receipt.' }),
    synthesize: ({ signal }) =>
      new Promise((_, reject) => {
        synthesizing();
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
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
  const turn: ActiveTurn = { id: 1, abort: new AbortController(), interrupted: false, paused: false, falseInterruptions: 0 };
  return { deps, turn, events, recorded, synthesisStarted };
}

describe('runTurn', () => {
  it('an interrupt while the first sentence is synthesized cuts the turn, it does not fail it (busy-core run, 2026-12-07)', async () => {
    const { deps, turn, events, recorded, synthesisStarted } = harness();
    const run = runTurn({ kind: 'text', turnId: 1, text: 'How long is the warranty?', endOfInput: 0 }, turn, deps);
    await synthesisStarted;
    // what TurnController.interrupt() does
    turn.interrupted = true;
    turn.abort.abort();
    await expect(run).resolves.toBeUndefined();
    expect(recorded).toMatchObject([{ interrupted: true, firstResponseMs: null }]);
    const completed = events.find((e) => e.type === 'turn.completed');
    expect(completed).toMatchObject({ interrupted: true, first_response_ms: null });
  });

  it('an interrupt while a later sentence is synthesized: the audio played is stopped as interrupted, the turn completes interrupted', async () => {
    const { deps, turn, events, recorded } = harness();
    let sentences = 0;
    let laterSentence!: () => void;
    const laterStarted = new Promise<void>((resolve) => (laterSentence = resolve));
    deps.brain.synthesize = ({ signal }) => {
      if (++sentences === 1) return Promise.resolve({ samples: new Int16Array(4800), sampleRate: 48_000 });
      laterSentence();
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    };
    let end!: (r: { reason: 'interrupted'; sentMs: number }) => void;
    const done = new Promise<{ reason: 'interrupted'; sentMs: number }>((resolve) => (end = resolve));
    deps.stream = (hooks) => {
      hooks.onFirstFrame?.(5);
      const playback = { append() {}, finish() {}, pause() {}, resume() {}, paused: false, whenBufferedBelow: async () => {}, done, stop: () => end({ reason: 'interrupted', sentMs: 60 }) } as unknown as ReturnType<TurnDeps['stream']>;
      turn.playback = playback; // as the connection's stream hook does
      return playback;
    };
    const run = runTurn({ kind: 'text', turnId: 1, text: 'How long is the warranty?', endOfInput: 0 }, turn, deps);
    await laterStarted;
    // what TurnController.interrupt() does
    turn.interrupted = true;
    turn.abort.abort();
    turn.playback!.stop('interrupted');
    await expect(run).resolves.toBeUndefined();
    expect(events.filter((e) => e.type === 'output.speech_stopped')).toMatchObject([{ reason: 'interrupted' }]);
    expect(events.some((e) => e.type === 'error')).toBe(false);
    expect(recorded).toMatchObject([{ interrupted: true, firstResponseMs: 5 }]);
  });

  it('a synthesis that fails on its own still fails the turn', async () => {
    const { deps, turn } = harness();
    deps.brain.synthesize = async () => {
      throw new Error('flite crashed');
    };
    await expect(runTurn({ kind: 'text', turnId: 1, text: 'How long is the warranty?', endOfInput: 0 }, turn, deps)).rejects.toThrow('flite crashed');
  });
});
