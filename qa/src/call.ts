import type { Page, TestInfo } from '@playwright/test';
import type { SessionMirror } from './bridge.js';
import { transcriptSoFar } from './describe.js';
import { attachEvidence } from './evidence.js';
import { mixUnder, prepareNoise, type PageClip } from './noise.js';
import { scriptTranscript } from './service.js';
import { prepareUtterance } from './speech.js';
import { decodeInPage, firstRecording, missedStartMs } from './first-words.js';
import type { CallNoiseOptions, CallReport, CallSnapshot, CallTurn, HeardAnswer, NoiseSource, SayOptions, Utterance } from './types.js';

/** Default wait of `nextTurn()` and of a call's connection (ms). */
export const DEFAULT_TURN_TIMEOUT_MS = 30_000;

interface QaPageApi {
  play(clip: PageClip, over?: boolean): Promise<number>;
  decode16k(file: string): Promise<string>;
  invoke(id: string, method: 'sendText' | 'end' | 'report', arg?: unknown): Promise<unknown>;
  marks(): { firstClipAt?: number; micOpenedAt?: number };
}
type QaGlobal = typeof globalThis & { __KB_VOICE_QA__: QaPageApi };

/** What `toHaveHeardFromStart` measured of the first question (qa/src/first-words.ts). */
export interface HeardFromStart {
  missedMs: number;
  saidMs: number;
  heardMs: number;
  /**
   * When the page's microphone was given to the call, after the question began (ms; negative: before
   * it), where the question was played by kb-voice-qa's microphone: a start missed by about this much
   * was said before the call had a microphone to capture it.
   */
  micOpenedAfterMs?: number;
}

/** How a call was made, for evidence and scripting. */
export interface CallContext {
  /** The test the evidence is attached to; undefined outside a Playwright test (an Artillery scenario). */
  testInfo: TestInfo | undefined;
  /** The call's number within its test, from 1. */
  number: number;
  /** The emulator to script transcripts on; undefined for a real service. */
  emulatorUrl: string | undefined;
  /** The robot called (for the service's recordings, `toHaveHeardFromStart`). */
  aiId?: string;
  /** For the evidence: the relay, whether it is the worker's emulator, the network profile. */
  relayUrl?: string;
  network?: string | null;
  /** Origins the call's recordings may be downloaded from, besides the relay's (the emulator's, the `voice` option's `recordingOrigins`). */
  recordingOrigins?: readonly string[];
}

/**
 * One voice call in a page, driven by the test: speak or type questions, wait for turns, end it
 * for its report. Made by `voiceCall.start()` (harness page) or `voiceCall.attach(page)` (an
 * app's own page); expectations: `expect(call).toAnswer(...)`, `toRespondWithin`, `toHaveQuality`.
 */
export class Call {
  /** Turns already taken by nextTurn() or an expectation. */
  #taken = 0;
  /** A turn `toSay` matched while it was spoken: nextTurn() passes over it once it finishes. */
  #heard: number | null = null;
  /** say() calls speak one after the other. */
  #speaking: Promise<unknown> = Promise.resolve();
  #ended: Promise<CallReport> | undefined;
  readonly #startedAt = new Date().toISOString();
  /** The first question said (a WAV file's bytes), for `toHaveHeardFromStart`. */
  #firstSaid: Uint8Array | undefined;

  /** @internal */
  constructor(
    /** The Playwright page the call runs in. */
    readonly page: Page,
    private readonly mirror: SessionMirror,
    private readonly context: CallContext,
  ) {}

  /** The session's latest snapshot (`VoiceSession.getSnapshot()` as JSON). */
  get session(): CallSnapshot {
    return this.mirror.snapshot ?? {
      status: 'idle', state: { status: 'idle' }, warmup: 'idle', muted: false, turns: [], live: null,
      userSpeaking: false, assistantSpeaking: false, playbackBlocked: false,
    };
  }

  /** Every finished turn so far, in order. */
  get turns(): readonly CallTurn[] {
    return this.mirror.turns;
  }

  /** The last turn taken by nextTurn() or an expectation; undefined before the first. */
  get lastTurn(): CallTurn | undefined {
    return this.#taken > 0 ? this.mirror.turns[this.#taken - 1] : undefined;
  }

  /** What was heard so far (finished turns, the turn in progress, the call's status), for messages. */
  describe(): string {
    return transcriptSoFar(this.mirror.turns, this.mirror.snapshot);
  }

  /**
   * Speaks into the call's fake microphone: text through the built-in TTS (Flite, English; on the
   * emulator also scripted as the words it recognizes), or a WAV file (`{ wav, transcript? }`;
   * `transcript` is scripted on the emulator). `{ noise, snrDb }` mixes a noise under the words
   * (a kb-voice-emulator/lab fixture by name, or `{ wav }`) at `snrDb` dB below them (default 10).
   * Resolves once the audio has played; calls queue.
   */
  say(utterance: Utterance, options: SayOptions = {}): Promise<void> {
    const prepared = prepareUtterance(utterance);
    const run = this.#speaking.then(async () => {
      const { wav, transcript } = await prepared;
      const sessionId = await this.#connected('say()');
      this.#firstSaid ??= wav;
      const clip = options.noise === undefined ? { file: Buffer.from(wav).toString('base64') } : await mixUnder(wav, options, (file) => this.#decode16k(file));
      if (transcript !== undefined && this.context.emulatorUrl) await scriptTranscript(this.context.emulatorUrl, sessionId, transcript);
      await this.page.evaluate((c) => (globalThis as QaGlobal).__KB_VOICE_QA__.play(c), clip);
    });
    this.#speaking = run.catch(() => undefined);
    return run;
  }

  /**
   * Plays a noise into the call's fake microphone from now on, over whatever it sends (a question
   * being said, or silence while an answer plays): a kb-voice-emulator/lab fixture by name
   * (`'cough'`, `'keyboard'`, `'beeps'`, `'music'`, `'cafe'`…; `durationMs` default 2000, `snrDb`
   * default 10 dB under the nominal speech level) or an audio file (`{ wav }`, as recorded unless
   * `snrDb` is given). Does not wait for queued `say()`s. Resolves once it has played.
   */
  async noise(source: NoiseSource, options: CallNoiseOptions = {}): Promise<void> {
    const clip = await prepareNoise(source, options, (file) => this.#decode16k(file));
    await this.#connected('noise()');
    await this.page.evaluate(([c, over]) => (globalThis as QaGlobal).__KB_VOICE_QA__.play(c, over), [clip, true] as const);
  }

  /** What reached the caller of `turn`'s answer: how long it was audible, and its words up to a cut. */
  heard(turn: CallTurn): HeardAnswer {
    return this.mirror.heard(turn);
  }

  /** Types a question (`VoiceSession.sendText`). */
  async type(text: string): Promise<void> {
    await this.#connected('type()');
    await this.#invoke('sendText', text);
  }

  /**
   * Resolves with the next finished turn not yet taken (waits up to `timeout`, default 30 s).
   * A turn `toSay` heard while it was spoken is passed over, unless `heard: true` (then it is the
   * turn returned, once finished: `toBeInterrupted` after `toSay`).
   */
  async nextTurn(options: { timeout?: number; heard?: boolean } = {}): Promise<CallTurn> {
    const timeout = options.timeout ?? DEFAULT_TURN_TIMEOUT_MS;
    if (this.#heard !== null) {
      // The turn toSay() took while it was spoken: wait for it to finish, then pass over it.
      const heard = this.#heard;
      await this.mirror.until(() => this.mirror.turns.length > this.#taken || this.#over(), timeout, () => `kb-voice-qa: the answer heard by toSay() did not finish within ${timeout} ms\n${this.describe()}`);
      this.#heard = null;
      if (this.mirror.turns[this.#taken]?.id === heard) {
        this.#taken++;
        if (options.heard) return this.mirror.turns[this.#taken - 1]!;
      }
    }
    const wanted = this.#taken + 1;
    await this.mirror.until(
      () => this.mirror.turns.length >= wanted || this.#over(),
      timeout,
      () => `kb-voice-qa: no finished turn within ${timeout} ms\n${this.describe()}`,
    );
    if (this.mirror.turns.length < wanted) throw new Error(`kb-voice-qa: the call is over (${this.session.status}) and turn ${wanted} never came\n${this.describe()}`);
    this.#taken = wanted;
    return this.mirror.turns[wanted - 1]!;
  }

  /**
   * Ends the call (gracefully: the robot finishes its sentence), fetches `VoiceSession.report()`
   * and attaches the evidence to the test (`voice-call.json`, recorded audio). Idempotent.
   */
  end(options: { mode?: 'graceful' | 'immediate' } = {}): Promise<CallReport> {
    this.#ended ??= this.#finish(options.mode ?? 'graceful');
    return this.#ended;
  }

  /**
   * @internal For `toSay`: waits until the next answer not yet taken matches `match`, while it is
   * spoken (its captions so far) or once finished; takes that turn. Resolves with the text heard
   * and whether the turn had finished; rejects after `timeout` ms with what was heard.
   */
  async hear(match: (text: string) => boolean, timeout: number): Promise<{ text: string; finished: boolean }> {
    let found: { text: string; finished: boolean; turnId: number } | undefined;
    const look = () => {
      const finished = this.mirror.turns.slice(this.#taken).find((t) => t.id !== this.#heard);
      if (finished) {
        // A cut answer: only the words spoken before the cut (its final text holds the rest).
        const text = this.mirror.heard(finished).text;
        if (match(text)) found = { text, finished: true, turnId: finished.id };
        return found !== undefined;
      }
      // While spoken: its captions as its audio plays (not its final text, sent at a cut too).
      const live = this.mirror.caption;
      const taken = (id: number) => this.mirror.turns.slice(0, this.#taken).some((t) => t.id === id);
      if (live && live.text && live.turnId !== this.#heard && !taken(live.turnId) && match(live.text)) found = { text: live.text, finished: false, turnId: live.turnId };
      return found !== undefined;
    };
    await this.mirror.until(() => look() || this.#over(), timeout, () => `kb-voice-qa: no answer matched within ${timeout} ms\n${this.describe()}`);
    if (!found) throw new Error(`kb-voice-qa: the call is over (${this.session.status}) and no answer matched\n${this.describe()}`);
    if (found.finished) {
      this.#taken = this.mirror.turns.findIndex((t) => t.id === found!.turnId) + 1;
      this.#heard = null;
    } else {
      this.#heard = found.turnId;
    }
    return { text: found.text, finished: found.finished };
  }

  /** @internal Resolves once `predicate` holds after some event of the session; rejects after `timeout` ms. */
  until(predicate: () => boolean, timeout: number): Promise<void> {
    return this.mirror.until(predicate, timeout, () => `kb-voice-qa: timed out after ${timeout} ms\n${this.describe()}`);
  }

  /** @internal `sayAtStart`: `wav` is being played since the click (`playing`); later say()s queue after it. */
  saidAtStart(wav: Uint8Array, playing: Promise<unknown>): void {
    this.#firstSaid ??= wav;
    this.#speaking = this.#speaking.then(() => playing).catch(() => undefined);
  }

  /**
   * @internal For `toHaveHeardFromStart`: how much of the first question's start the service's
   * recording of it misses (qa/src/first-words.ts), waiting up to `timeout` ms for the recording.
   */
  async heardFromStart(timeout: number): Promise<HeardFromStart | { problem: string }> {
    if (!this.#firstSaid) return { problem: 'nothing was said in this call (say() or sayAtStart)' };
    const { relayUrl, aiId } = this.context;
    const sessionId = this.mirror.snapshot?.sessionId;
    if (!relayUrl || !aiId || !sessionId) return { problem: 'the call has no session on a relay to read the recording from' };
    const recording = await firstRecording(relayUrl, aiId, sessionId, Date.now() + timeout);
    if (!recording) return { problem: `the service recorded no question within ${timeout} ms: it heard none of it` };
    const measured = missedStartMs(await this.#decode16k(this.#firstSaid), 16000, await this.#decode16k(recording), 16000);
    const marks = await this.page.evaluate(() => (globalThis as QaGlobal).__KB_VOICE_QA__.marks()).catch(() => ({}) as ReturnType<QaPageApi['marks']>);
    const { firstClipAt, micOpenedAt } = marks;
    return firstClipAt !== undefined && micOpenedAt !== undefined ? { ...measured, micOpenedAfterMs: Math.round(micOpenedAt - firstClipAt) } : measured;
  }

  /** @internal Ends the call if the test did not (fixture teardown); never throws. */
  async settle(): Promise<void> {
    await this.end({ mode: 'immediate' }).catch(() => undefined);
  }

  async #finish(mode: 'graceful' | 'immediate'): Promise<CallReport> {
    let report: CallReport | null = null;
    let problem: string | undefined;
    try {
      await this.#speaking;
      await this.#invoke('end', { mode });
      const raw = (await this.#invoke('report')) as Omit<CallReport, 'quality'> & { quality?: CallReport['quality'] };
      report = { ...raw, quality: raw.quality ?? null };
    } catch (error) {
      problem = `report not available: ${(error as Error).message.split('\n')[0]}`;
    }
    const { testInfo, relayUrl, emulatorUrl, network } = this.context;
    const facts = { startedAt: this.#startedAt, network: network ?? null, target: { relayUrl: relayUrl ?? new URL(this.page.url()).origin, emulator: emulatorUrl !== undefined } };
    const heard = this.mirror.turns.map((t) => ({ messageId: t.messageId, turnId: t.id, ...this.mirror.heard(t) }));
    const origins = [...(emulatorUrl ? [emulatorUrl] : []), ...(this.context.recordingOrigins ?? [])];
    if (testInfo) await attachEvidence(testInfo, this.context.number, report, this.mirror.turns, problem, { ...facts, heard }, origins);
    if (!report) throw new Error(`kb-voice-qa: ${problem}\n${this.describe()}`);
    return report;
  }

  /** @internal Waits until the call is connected (or fails); resolves with the session id. */
  async waitConnected(timeout: number): Promise<string> {
    await this.mirror.until(
      () => this.session.status !== 'idle' && this.session.status !== 'connecting' && this.session.status !== 'reconnecting',
      timeout,
      () => `kb-voice-qa: the call did not connect within ${timeout} ms\n${this.describe()}`,
    );
    return this.#connected('start()');
  }

  async #connected(what: string): Promise<string> {
    const { status, sessionId, error } = this.session;
    if (status === 'connected' && sessionId) return sessionId;
    const why = error ? ` (${error.code ?? 'error'}: ${error.message})` : '';
    throw new Error(`kb-voice-qa: ${what} needs a connected call; it is ${status}${why}\n${this.describe()}`);
  }

  #over(): boolean {
    return this.session.status === 'ended' || this.session.status === 'failed';
  }

  #decode16k(file: Uint8Array): Promise<Int16Array> {
    return decodeInPage(this.page, file);
  }

  #invoke(method: 'sendText' | 'end' | 'report', arg?: unknown): Promise<unknown> {
    return this.page.evaluate(
      ([id, name, value]) => (globalThis as QaGlobal).__KB_VOICE_QA__.invoke(id, name, value),
      [this.mirror.id, method, arg] as const,
    );
  }
}
