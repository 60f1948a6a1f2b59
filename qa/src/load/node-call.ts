import type { SessionReport, VoiceSession as VoiceSessionType } from 'kb-voice';
import { heard, transcriptSoFar } from '../describe.js';
import { prepareUtterance } from '../speech.js';
import type { CallTurn, Utterance } from '../types.js';

/** Where a Node call goes and as whom. */
export interface NodeCallTarget {
  /** The relay (or service) base URL, e.g. `http://127.0.0.1:8788/api/voice`. */
  relayUrl: string;
  aiId: string;
  /** The emulator behind the relay: `say(text)` then also scripts the words it recognizes. */
  emulatorUrl?: string;
  /** Default `en`. */
  language?: string;
  /** The caller's identity (the relay scopes and limits per user); each virtual user its own. */
  userIdentifier?: string;
  /** Extra headers on every request to the relay (e.g. a token your relay's `authorize` reads). */
  headers?: Record<string, string>;
  /** Limit for connecting (default 15000 ms). */
  connectTimeoutMs?: number;
}

/** A load call failed: `code` is what Artillery counts (`errors.<code>`). */
export class LoadCallError extends Error {
  override readonly name = 'LoadCallError';
  constructor(
    readonly code: 'voice_connect_failed' | 'voice_turn_timeout' | 'voice_answer_mismatch' | 'voice_call_ended' | 'voice_say_failed' | `voice_${string}`,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Default wait for a turn (ms). */
export const NODE_TURN_TIMEOUT_MS = 30_000;

type KbVoice = typeof import('kb-voice');
type Emulator = typeof import('kb-voice-emulator');
let modules: Promise<{ kb: KbVoice; emulator: Emulator; wrtc: unknown }> | undefined;

/** kb-voice, kb-voice-emulator (FakeMicrophone) and @roamhq/wrtc, loaded once per process. */
function loadModules() {
  modules ??= (async () => {
    try {
      const [kb, emulator, wrtc] = await Promise.all([import('kb-voice'), import('kb-voice-emulator'), import('@roamhq/wrtc')]);
      return { kb, emulator, wrtc: (wrtc as { default?: unknown }).default ?? wrtc };
    } catch (cause) {
      modules = undefined;
      throw new Error('kb-voice-qa: Node callers need kb-voice-emulator (its FakeMicrophone and Flite) and @roamhq/wrtc: npm install -D kb-voice-emulator', { cause });
    }
  })();
  return modules;
}

const matches = (answer: string, expected: RegExp | string) => {
  if (typeof expected === 'string') return answer.toLowerCase().includes(expected.toLowerCase());
  expected.lastIndex = 0;
  return expected.test(answer);
};

/**
 * A voice call from Node for load tests: kb-voice's `VoiceSession` over @roamhq/wrtc with
 * kb-voice-emulator's `FakeMicrophone` (frames only while it speaks, so a listening caller costs
 * nothing), the same verbs as the Playwright `Call`: `say`, `type`, `nextTurn`, and
 * `expectAnswer(expected, { within })` in place of `expect(call).toAnswer`. Dozens run in one process.
 */
export class NodeCall {
  readonly turns: CallTurn[] = [];
  /** The caller's own perceived latency per voice turn: its speech end to the answer's first audio (ms). */
  readonly clientPerceivedMs = new Map<number, number>();
  #taken = 0;
  #speechEndAt: number | null = null;
  #firstAudioAt: number | null = null;
  #waiters = new Set<() => void>();
  #ended: Promise<SessionReport | null> | undefined;
  #onTurn: ((turn: CallTurn, clientPerceivedMs: number | null) => void) | undefined;

  private constructor(
    readonly session: VoiceSessionType,
    private readonly mic: InstanceType<Emulator['FakeMicrophone']>,
    readonly target: NodeCallTarget,
    /** From `start()` to connected (ms). */
    readonly connectMs: number,
  ) {
    session.on('assistantSpeaking', (on: boolean) => {
      if (on && this.#speechEndAt !== null && this.#firstAudioAt === null) this.#firstAudioAt = performance.now();
    });
    session.on('turn', (turn: CallTurn) => {
      let perceived: number | null = null;
      if (turn.input === 'voice' && this.#speechEndAt !== null && this.#firstAudioAt !== null) perceived = Math.round(this.#firstAudioAt - this.#speechEndAt);
      if (perceived !== null) this.clientPerceivedMs.set(turn.id, perceived);
      if (turn.input === 'voice') this.#speechEndAt = this.#firstAudioAt = null;
      this.turns.push(turn);
      this.#onTurn?.(turn, perceived);
      this.#wake();
    });
    session.on('state', () => this.#wake());
  }

  /** Connects a call; rejects with a `LoadCallError` (`voice_connect_failed`) saying why. */
  static async start(target: NodeCallTarget, onTurn?: (turn: CallTurn, clientPerceivedMs: number | null) => void): Promise<NodeCall> {
    const { kb, emulator, wrtc } = await loadModules();
    const api = kb.createApiClient({ baseUrl: target.relayUrl, ...(target.headers ? { headers: target.headers } : {}) });
    const mic = new emulator.FakeMicrophone({ ...(target.emulatorUrl ? { emulatorUrl: target.emulatorUrl } : {}), sendSilence: false });
    const session = new kb.VoiceSession({
      aiId: target.aiId, api, wrtc: wrtc as never, microphone: mic.open, language: target.language ?? 'en',
      ...(target.userIdentifier ? { userIdentifier: target.userIdentifier } : {}),
      connectTimeoutMs: target.connectTimeoutMs ?? 15_000,
    });
    const t0 = performance.now();
    try {
      await session.start();
    } catch (cause) {
      mic.close();
      const code = (cause as { code?: string }).code;
      throw new LoadCallError(code ? `voice_${code}` : 'voice_connect_failed', `kb-voice-qa: the call did not connect: ${(cause as Error).message}`, { cause });
    }
    const call = new NodeCall(session, mic, target, Math.round(performance.now() - t0));
    call.#onTurn = onTurn;
    return call;
  }

  get sessionId(): string | undefined {
    return this.session.sessionId ?? undefined;
  }

  /** Speaks text (Flite; on the emulator also scripted as its transcript) or a WAV `{ wav, transcript? }`; resolves once spoken. */
  async say(utterance: Utterance): Promise<void> {
    const { wav, transcript } = await prepareUtterance(utterance);
    this.#requireLive('say()');
    try {
      await this.mic.playWav(wav, {
        ...(transcript !== undefined && this.target.emulatorUrl ? { transcript, sessionId: this.session.sessionId ?? undefined } : {}),
      });
    } catch (cause) {
      throw new LoadCallError('voice_say_failed', `kb-voice-qa: say() failed: ${(cause as Error).message}`, { cause });
    }
    this.#speechEndAt = performance.now();
    this.#firstAudioAt = null;
  }

  /** A typed question. */
  type(text: string): void {
    this.#requireLive('type()');
    this.session.sendText(text);
  }

  /** The next finished turn not yet taken (waits up to `timeout`, default 30 s). */
  async nextTurn(options: { timeout?: number } = {}): Promise<CallTurn> {
    const timeout = options.timeout ?? NODE_TURN_TIMEOUT_MS;
    const wanted = this.#taken + 1;
    const over = () => ['ended', 'failed'].includes(this.session.state.status);
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
    if (this.turns.length < wanted) throw new LoadCallError('voice_call_ended', `kb-voice-qa: the call is ${this.session.state.status} and turn ${wanted} never came\n${this.describe()}`);
    this.#taken = wanted;
    return this.turns[wanted - 1]!;
  }

  /** Like `expect(call).toAnswer()`: the next finished turn's answer matches `expected`; else a `LoadCallError` (`voice_answer_mismatch`). */
  async expectAnswer(expected: RegExp | string, options: { within?: number } = {}): Promise<CallTurn> {
    const turn = await this.nextTurn({ timeout: options.within ?? NODE_TURN_TIMEOUT_MS });
    if (!matches(turn.answer, expected)) {
      throw new LoadCallError('voice_answer_mismatch', `kb-voice-qa: expected an answer matching ${String(expected)}\n${heard(turn)}\n${this.describe()}`);
    }
    return turn;
  }

  /** What was heard so far, for messages. */
  describe(): string {
    return `${transcriptSoFar(this.turns, undefined)}\nCall: ${this.session.state.status}${this.sessionId ? `, session ${this.sessionId}` : ''}`;
  }

  /** Ends the call (graceful by default) and resolves with `report()` (null when it could not be fetched). Idempotent. */
  end(options: { mode?: 'graceful' | 'immediate' } = {}): Promise<SessionReport | null> {
    this.#ended ??= (async () => {
      try {
        await this.session.end({ mode: options.mode ?? 'graceful' });
        return await this.session.report().catch(() => null);
      } finally {
        this.mic.close();
      }
    })();
    return this.#ended;
  }

  #requireLive(what: string): void {
    const status = this.session.state.status;
    if (status !== 'connected') throw new LoadCallError('voice_call_ended', `kb-voice-qa: ${what} needs a connected call; it is ${status}\n${this.describe()}`);
  }

  #wake(): void {
    for (const check of [...this.#waiters]) check();
  }
}
