import { heard, transcriptSoFar } from '../describe.js';
import { cutProblem } from '../cut.js';
import type { CallTurn, Utterance } from '../types.js';
import { callerProcess, newCallNumber, type CallerProcess } from './caller-pool.js';
import type { LineReport, NodeCallTarget } from './node-line.js';

export type { NodeCallTarget } from './node-line.js';

/** A load call failed: `code` is what Artillery counts (`errors.<code>`). */
export class LoadCallError extends Error {
  override readonly name = 'LoadCallError';
  constructor(
    readonly code: `voice_${string}`,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Default wait for a turn (ms). */
export const NODE_TURN_TIMEOUT_MS = 30_000;

const matches = (answer: string, expected: RegExp | string) => {
  if (typeof expected === 'string') return answer.toLowerCase().includes(expected.toLowerCase());
  expected.lastIndex = 0;
  return expected.test(answer);
};

const asLoadError = (error: unknown, fallback: string): LoadCallError => {
  if (error instanceof LoadCallError) return error;
  const code = (error as { code?: unknown }).code;
  return new LoadCallError(`voice_${typeof code === 'string' ? code : fallback}`, `kb-voice-qa: ${(error as Error).message}`, { cause: error });
};

/**
 * A voice call from Node for load tests, with the verbs of the Playwright `Call`: `say`, `type`,
 * `nextTurn`, and `expectAnswer(expected, { within })` in place of `expect(call).toAnswer`. Its
 * media (kb-voice's `VoiceSession` over @roamhq/wrtc, kb-voice-emulator's `FakeMicrophone` and
 * Flite) runs in a caller process of the Artillery worker: dozens of calls share it.
 */
export class NodeCall {
  readonly turns: CallTurn[] = [];
  /** The caller's own perceived latency per voice turn: its speech end to the answer's first audio (ms). */
  readonly clientPerceivedMs = new Map<number, number>();
  /** From `start()` to connected (ms). */
  connectMs = 0;
  sessionId: string | undefined;
  #status = 'connecting';
  #taken = 0;
  #waiters = new Set<() => void>();
  #ended: Promise<LineReport> | undefined;

  private constructor(
    private readonly host: CallerProcess,
    private readonly number: number,
    readonly target: NodeCallTarget,
    onTurn: ((turn: CallTurn, clientPerceivedMs: number | null) => void) | undefined,
  ) {
    host.listen(number, {
      turn: (turn, perceived) => {
        if (perceived !== null) this.clientPerceivedMs.set(turn.id, perceived);
        this.turns.push(turn);
        onTurn?.(turn, perceived);
        this.#wake();
      },
      status: (status) => {
        this.#status = status;
        this.#wake();
      },
    });
  }

  /** Connects a call; rejects with a `LoadCallError` (`voice_<the session's code>`, else `voice_connect_failed`). */
  static async start(target: NodeCallTarget, onTurn?: (turn: CallTurn, clientPerceivedMs: number | null) => void): Promise<NodeCall> {
    const host = callerProcess();
    const call = new NodeCall(host, newCallNumber(), target, onTurn);
    try {
      const opened = (await host.request({ op: 'open', call: call.number, target })) as { connectMs: number; sessionId: string | null; status: string };
      call.connectMs = opened.connectMs;
      call.sessionId = opened.sessionId ?? undefined;
      call.#status = opened.status;
    } catch (error) {
      host.forget(call.number);
      throw asLoadError(error, 'connect_failed');
    }
    return call;
  }

  /** The session's status: `connected`, `reconnecting`, `ended`, `failed`… */
  get status(): string {
    return this.#status;
  }

  /** Speaks text (Flite; on the emulator also scripted as its transcript) or a WAV `{ wav, transcript? }`; resolves once spoken. */
  async say(utterance: Utterance): Promise<void> {
    this.#requireLive('say()');
    await this.host.request({ op: 'say', call: this.number, utterance }).catch((e: unknown) => {
      throw asLoadError(e, 'say_failed');
    });
  }

  /** A typed question. */
  async type(text: string): Promise<void> {
    this.#requireLive('type()');
    await this.host.request({ op: 'type', call: this.number, text }).catch((e: unknown) => {
      throw asLoadError(e, 'type_failed');
    });
  }

  /** The next finished turn not yet taken (waits up to `timeout`, default 30 s). */
  async nextTurn(options: { timeout?: number } = {}): Promise<CallTurn> {
    const timeout = options.timeout ?? NODE_TURN_TIMEOUT_MS;
    const wanted = this.#taken + 1;
    const over = () => this.#status === 'ended' || this.#status === 'failed';
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (this.turns.length < wanted && !over()) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new LoadCallError('voice_turn_timeout', `kb-voice-qa: no finished turn within ${timeout} ms\n${this.describe()}`));
      }, timeout);
      this.#waiters.add(check);
      check();
    });
    if (this.turns.length < wanted) throw new LoadCallError('voice_call_ended', `kb-voice-qa: the call is ${this.#status} and turn ${wanted} never came\n${this.describe()}`);
    this.#taken = wanted;
    return this.turns[wanted - 1]!;
  }

  /**
   * Like `expect(call).toAnswer()`: the next finished turn's answer matches `expected` and was heard
   * whole; else a `LoadCallError` (`voice_answer_mismatch`, or `voice_answer_cut` when its audio was cut).
   */
  async expectAnswer(expected: RegExp | string, options: { within?: number } = {}): Promise<CallTurn> {
    const turn = await this.nextTurn({ timeout: options.within ?? NODE_TURN_TIMEOUT_MS });
    const cut = cutProblem(turn, undefined, 'call.nextTurn()');
    if (cut) throw new LoadCallError('voice_answer_cut', `kb-voice-qa: expected an answer matching ${String(expected)}: ${cut}\n${heard(turn)}\n${this.describe()}`);
    if (!matches(turn.answer, expected)) {
      throw new LoadCallError('voice_answer_mismatch', `kb-voice-qa: expected an answer matching ${String(expected)}\n${heard(turn)}\n${this.describe()}`);
    }
    return turn;
  }

  /** What was heard so far, for messages. */
  describe(): string {
    return `${transcriptSoFar(this.turns, undefined)}\nCall: ${this.#status}${this.sessionId ? `, session ${this.sessionId}` : ''}`;
  }

  /** Ends the call (graceful by default); resolves with its MOS and recorded audio (empty when the report could not be fetched). Idempotent. */
  end(options: { mode?: 'graceful' | 'immediate' } = {}): Promise<LineReport> {
    this.#ended ??= this.host
      .request({ op: 'end', call: this.number, mode: options.mode ?? 'graceful' })
      .then((r) => r as LineReport, () => ({ mos: null, audio: [] }))
      .finally(() => this.host.forget(this.number));
    return this.#ended;
  }

  #requireLive(what: string): void {
    if (this.#status !== 'connected') throw new LoadCallError('voice_call_ended', `kb-voice-qa: ${what} needs a connected call; it is ${this.#status}\n${this.describe()}`);
  }

  #wake(): void {
    for (const check of [...this.#waiters]) check();
  }
}
