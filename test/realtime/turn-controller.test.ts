import { describe, expect, it } from 'vitest';
import { TurnController, type ActiveTurn, type TurnInput } from '../../emulator/src/realtime/turn-controller.js';

// The turn controller on its own: numbering, the active turn, the queue and barge-in, with turns
// that run until the test finishes them (no WebRTC, no timers).

/** A controller whose turns run until `finish(id)`; records what ran and what failed. */
function harness(opts: { firstTurnId?: number; interruptions?: 'auto' | 'off' } = {}) {
  const running = new Map<number, { turn: ActiveTurn; done: () => void; fail: (e: Error) => void }>();
  const ran: number[] = [];
  const failed: Array<{ turnId: number; message: string }> = [];
  const stops: string[] = [];
  const controller = new TurnController({
    firstTurnId: opts.firstTurnId ?? 1,
    ...(opts.interruptions ? { interruptions: opts.interruptions } : {}),
    run: (input, turn) =>
      new Promise<void>((resolve, reject) => {
        ran.push(input.turnId);
        // What the turn runner does once speech starts: the controller stops it on barge-in/end.
        turn.playback = { stop: (reason: string) => stops.push(`${turn.id}:${reason}`), done: Promise.resolve({ reason: 'completed', sentMs: 0 }) } as unknown as ActiveTurn['playback'];
        running.set(input.turnId, { turn, done: resolve, fail: reject });
      }),
    failed: (input, error) => failed.push({ turnId: input.turnId, message: (error as Error).message }),
  });
  const text = (turnId: number): TurnInput => ({ kind: 'text', turnId, text: `question ${turnId}`, endOfInput: 0 });
  const finish = async (turnId: number) => {
    running.get(turnId)!.done();
    await Promise.resolve();
    await new Promise((r) => setImmediate(r));
  };
  return { controller, running, ran, failed, stops, text, finish };
}

describe('TurnController', () => {
  it('numbers turns from firstTurnId, never reusing a number', () => {
    const { controller } = harness({ firstTurnId: 4 });
    expect(controller.nextTurnId).toBe(4);
    expect([controller.allocate(), controller.allocate(), controller.allocate()]).toEqual([4, 5, 6]);
    expect(controller.nextTurnId).toBe(7);
    expect(() => harness({ firstTurnId: 0 })).toThrow(RangeError);
  });

  it('continues the numbering across a reconnection (a new controller from the last one\'s nextTurnId)', async () => {
    const first = harness();
    first.controller.start(first.text(first.controller.allocate()));
    first.controller.allocate(); // an utterance heard, then the link dropped
    await first.controller.end(0);
    const second = harness({ firstTurnId: first.controller.nextTurnId });
    expect(second.controller.allocate()).toBe(3);
  });

  it('barge-in (auto): a new input cuts the answer in progress — aborted, marked, its speech stopped', async () => {
    const { controller, running, ran, stops, text, finish } = harness();
    controller.start(text(controller.allocate()));
    const first = running.get(1)!.turn;
    expect(controller.active).toBe(first);
    expect(controller.bargeIn()).toBe(true);
    expect(first).toMatchObject({ interrupted: true });
    expect(first.abort.signal.aborted).toBe(true);
    expect(stops).toEqual(['1:interrupted']);
    expect(controller.start(text(controller.allocate()))).toBe('started');
    expect(ran).toEqual([1, 2]);
    expect(controller.active?.id).toBe(2);
    // The cut turn finishing later (it records itself) does not clear the new active turn.
    await finish(1);
    expect(controller.active?.id).toBe(2);
    await finish(2);
    expect(controller.active).toBeUndefined();
    expect(controller.bargeIn()).toBe(false); // nothing to cut
  });

  it('interruptions off: inputs queue behind the answer and are answered in order; an explicit interrupt still cuts', async () => {
    const { controller, ran, stops, text, finish } = harness({ interruptions: 'off' });
    controller.start(text(controller.allocate()));
    expect(controller.bargeIn()).toBe(false);
    expect(stops).toEqual([]);
    expect(controller.start(text(controller.allocate()))).toBe('queued');
    expect(controller.start(text(controller.allocate()))).toBe('queued');
    expect(controller.queued).toBe(2);
    expect(ran).toEqual([1]);
    await finish(1);
    expect(ran).toEqual([1, 2]);
    expect(controller.active?.id).toBe(2);
    expect(controller.interrupt()).toBe(true);
    expect(stops).toEqual(['2:interrupted']);
    await finish(2);
    expect(ran).toEqual([1, 2, 3]);
    const idle = controller.whenIdle();
    await finish(3);
    await idle;
    expect(controller.active).toBeUndefined();
    expect(controller.queued).toBe(0);
  });

  it('a failed turn is reported and the queue goes on', async () => {
    const { controller, running, ran, failed, text } = harness({ interruptions: 'off' });
    controller.start(text(controller.allocate()));
    controller.start(text(controller.allocate()));
    running.get(1)!.fail(new Error('synthesis failed'));
    await new Promise((r) => setImmediate(r));
    expect(failed).toEqual([{ turnId: 1, message: 'synthesis failed' }]);
    expect(ran).toEqual([1, 2]);
  });

  it('end(): drops the queue, stops the answer as ended, waits for it, then refuses new turns', async () => {
    const { controller, ran, stops, text, finish } = harness({ interruptions: 'off' });
    controller.start(text(controller.allocate()));
    controller.start(text(controller.allocate()));
    const ended = controller.end(5000);
    expect(stops).toEqual(['1:ended']);
    expect(controller.queued).toBe(0);
    await finish(1);
    await ended;
    expect(ran).toEqual([1]);
    expect(controller.start(text(controller.allocate()))).toBe('closed');
  });
});
