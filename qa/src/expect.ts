import { expect as base, type ExpectMatcherState } from '@playwright/test';
import { sourcesOf } from './bridge.js';
import { Call } from './call.js';
import { checkCutBy, cutProblem, judgeCut, type CutBy } from './cut.js';
import { heard, latencyOf, ms } from './describe.js';
import { checkPhase, phaseMs, type TimingPhase } from './phases.js';
import type { CallTurn, QualityLevel } from './types.js';

/** Quality levels from worst to best (`unknown`: not measured yet). */
const LEVELS: readonly QualityLevel[] = ['poor', 'fair', 'good', 'excellent'];

function requireCall(received: unknown, matcher: string): Call {
  if (received instanceof Call) return received;
  throw new TypeError(`kb-voice-qa: expect(call).${matcher}() takes a Call (from voiceCall.start() or voiceCall.attach(page))`);
}

function matches(answer: string, expected: RegExp | string): boolean {
  if (typeof expected === 'string') return answer.toLowerCase().includes(expected.toLowerCase());
  expected.lastIndex = 0;
  return expected.test(answer);
}

function header(state: ExpectMatcherState, matcher: string, expected: string): string {
  return `${state.utils.matcherHint(matcher, 'call', expected, { isNot: state.isNot })}\n\n`;
}

/** The turn a latency expectation is about: the last one taken, else the next one. */
async function turnForLatency(call: Call, timeout: number): Promise<CallTurn> {
  return call.lastTurn ?? (await call.nextTurn({ timeout }));
}

/**
 * Playwright's `expect` with the voice-call matchers:
 * - `toAnswer(expected, { within })`: the next finished turn's answer matches `expected` (a RegExp,
 *   or a string it contains, ignoring case), waiting up to `within` ms (default: the expect timeout),
 *   and the caller heard it whole: an answer whose audio was cut (`Turn.interrupted`, by the
 *   caller's speech or the app) fails, saying after how long and by whom.
 * - `toBeInterrupted({ by, within })`: the next finished turn's answer was cut (by `'caller'` or
 *   `'app'` when asked); after `toSay`, the turn it heard.
 * - `toSay(expected, { within })`: the next answer matches `expected` as the caller heard it — its
 *   captions as its audio plays, or the finished answer (of a cut answer, only the words spoken
 *   before the cut) — within `within` ms: a long answer passes once its words were spoken, before
 *   it ends. The turn counts as taken (`toAnswer` waits for the next).
 * - `toRespondWithin(ms, { phase })`: the last checked turn (else the next) was answered within `ms`: the
 *   perceived latency where the page measured it, else the service's first response; with `phase`
 *   (`endpointing`, `service`, `network`, `buffering`, `playback`), that phase of `Turn.timing`
 *   (docs/quality.md "Where the time goes"), which fails when the phase was not measured.
 * - `toHaveQuality(level)`: the call's measured quality reaches `level` (`poor` < `fair` < `good` <
 *   `excellent`) within the expect timeout.
 * - `expect(turn).toCite(expected, { within })`: a source of `turn` (from `call.nextTurn()`) has a
 *   title, file id or URL matching `expected` (a RegExp, or a string it contains, ignoring case);
 *   it waits up to `within` ms (default: the expect timeout) for the page to read the turn's
 *   sources (`Turn.sources`, read after the turn ends), and a failure lists the sources it had.
 * - `toHaveHeardFromStart({ within, toleranceMs })`: the service received the first question said in
 *   the call (`say()` or `voiceCall.start({ sayAtStart })`) from within `toleranceMs` (default 100)
 *   of its onset: its recording of that utterance misses at most that much of its start
 *   (qa/src/first-words.ts); waits up to `within` ms (default 30 s) for the recording.
 * Failures say what was heard: the answer, the transcript so far and the latency.
 */
export const expect = base.extend({
  async toCite(this: ExpectMatcherState, received: CallTurn, expected: RegExp | string, options: { within?: number } = {}) {
    if (typeof received !== 'object' || received === null || typeof (received as { messageId?: unknown }).messageId !== 'string') {
      throw new TypeError('kb-voice-qa: expect(turn).toCite() takes a turn (from call.nextTurn())');
    }
    const within = options.within ?? this.timeout;
    const wanted = typeof expected === 'string' ? JSON.stringify(expected) : String(expected);
    const sources = await sourcesOf(received, within);
    const cited = (sources ?? []).filter((s) => s.title);
    const hit = cited.find((s) => [s.title, s.fileId, s.url].some((v) => typeof v === 'string' && matches(v, expected)));
    const listed = cited.map((s) => `  - ${JSON.stringify(s.title)}${s.fileId ? ` (file ${s.fileId})` : ''}${s.url ? ` ${s.url}` : ''}${s.page ? ` page ${s.page}` : ''}`).join('\n');
    const message = () =>
      `${this.utils.matcherHint('toCite', 'turn', wanted, { isNot: this.isNot })}\n\n` +
      `Expected: ${this.isNot ? 'no source' : 'a source'} whose title, file id or URL matches ${wanted}\n` +
      (sources === undefined ? `Received: no sources read within ${within} ms (is the session's sources option on?)\n`
        : cited.length === 0 ? 'Received: the answer cites no source\n' : `Received sources:\n${listed}\n`) +
      `Turn ${received.id}: ${JSON.stringify(received.question)} → ${JSON.stringify(received.answer)}`;
    return { pass: hit !== undefined, message, name: 'toCite', expected, actual: cited.map((s) => s.title) };
  },

  async toAnswer(this: ExpectMatcherState, received: Call, expected: RegExp | string, options: { within?: number } = {}) {
    const call = requireCall(received, 'toAnswer');
    const within = options.within ?? this.timeout;
    const wanted = typeof expected === 'string' ? JSON.stringify(expected) : String(expected);
    let turn: CallTurn | undefined;
    let waitError: string | undefined;
    try {
      turn = await call.nextTurn({ timeout: within });
    } catch (error) {
      waitError = (error as Error).message.split('\n')[0];
    }
    // A QA tool must never pass a call the caller did not hear: a cut answer fails, whatever its text.
    const cut = turn === undefined ? undefined : cutProblem(turn, call.heard(turn));
    const pass = turn !== undefined && cut === undefined && matches(turn.answer, expected);
    const message = () =>
      header(this, 'toAnswer', wanted) +
      `Expected: ${this.isNot ? 'an answer not matching' : 'an answer matching'} ${wanted} within ${within} ms, heard whole\n` +
      (turn ? `${cut ? `Received: ${cut}\n` : ''}${heard(turn)}\n\n` : `Received: ${waitError ?? 'no answer'}\n\n`) +
      call.describe();
    return { pass, message, name: 'toAnswer', expected, actual: turn?.answer };
  },

  async toSay(this: ExpectMatcherState, received: Call, expected: RegExp | string, options: { within?: number } = {}) {
    const call = requireCall(received, 'toSay');
    const within = options.within ?? this.timeout;
    const wanted = typeof expected === 'string' ? JSON.stringify(expected) : String(expected);
    let heardText: { text: string; finished: boolean } | undefined;
    let waitError: string | undefined;
    try {
      heardText = await call.hear((text) => matches(text, expected) !== this.isNot, within);
    } catch (error) {
      waitError = (error as Error).message.split('\n')[0];
    }
    const pass = heardText !== undefined ? !this.isNot : this.isNot;
    const message = () =>
      header(this, 'toSay', wanted) +
      `Expected: ${this.isNot ? 'an answer not saying' : 'an answer saying'} ${wanted} within ${within} ms (as heard: its words as its audio played, up to a cut; finished or not)\n` +
      (heardText ? `Heard: ${JSON.stringify(heardText.text)}${heardText.finished ? '' : ' (still speaking)'}\n\n` : `Received: ${waitError ?? 'nothing'}\n\n`) +
      call.describe();
    return { pass, message, name: 'toSay', expected, actual: heardText?.text };
  },

  async toBeInterrupted(this: ExpectMatcherState, received: Call, options: { by?: CutBy; within?: number } = {}) {
    const call = requireCall(received, 'toBeInterrupted');
    const by = checkCutBy(options.by);
    const within = options.within ?? this.timeout;
    let turn: CallTurn | undefined;
    let waitError: string | undefined;
    try {
      turn = await call.nextTurn({ timeout: within, heard: true });
    } catch (error) {
      waitError = (error as Error).message.split('\n')[0];
    }
    const verdict = turn ? judgeCut(turn, call.heard(turn), by) : undefined;
    const pass = verdict?.pass ?? false;
    const message = () =>
      header(this, 'toBeInterrupted', by ? `{ by: '${by}' }` : '') +
      `Expected: the next answer ${this.isNot ? 'heard whole, not cut' : `cut${by ? ` by the ${by}` : ''}`} within ${within} ms\n` +
      (turn ? `Received: ${verdict!.received}\n${heard(turn)}\n\n` : `Received: ${waitError ?? 'no answer'}\n\n`) +
      call.describe();
    return { pass, message, name: 'toBeInterrupted', expected: by ?? 'cut', actual: turn ? turn.interruptedBy ?? turn.interrupted : undefined };
  },

  async toRespondWithin(this: ExpectMatcherState, received: Call, limitMs: number, options: { phase?: TimingPhase } = {}) {
    const call = requireCall(received, 'toRespondWithin');
    const phase = options.phase === undefined ? undefined : checkPhase(options.phase, 'toRespondWithin(ms, { phase })');
    let turn: CallTurn | undefined;
    let waitError: string | undefined;
    try {
      turn = await turnForLatency(call, this.timeout);
    } catch (error) {
      waitError = (error as Error).message.split('\n')[0];
    }
    const perceived = turn?.perceivedLatencyMs;
    const latency = phase ? (turn ? phaseMs(turn, phase) : null) : typeof perceived === 'number' ? perceived : turn?.firstResponseMs ?? null;
    const measure = phase ? `${phase} phase` : typeof perceived === 'number' ? 'perceived latency' : 'first response';
    const pass = latency !== null && latency <= limitMs;
    const message = () =>
      header(this, 'toRespondWithin', phase ? `${limitMs}, { phase: '${phase}' }` : `${limitMs}`) +
      `Expected: ${phase ? `its ${phase} phase` : 'a response'} ${this.isNot ? 'slower than' : 'within'} ${limitMs} ms\n` +
      (turn ? `Received: ${measure} ${ms(latency)} (${latencyOf(turn)})\n${heard(turn)}\n\n` : `Received: ${waitError ?? 'no turn'}\n\n`) +
      call.describe();
    return { pass, message, name: 'toRespondWithin', expected: limitMs, actual: latency };
  },

  async toHaveQuality(this: ExpectMatcherState, received: Call, level: Exclude<QualityLevel, 'unknown'>) {
    const call = requireCall(received, 'toHaveQuality');
    if (!LEVELS.includes(level)) throw new TypeError(`kb-voice-qa: toHaveQuality(level): level is one of ${LEVELS.join(', ')}`);
    const reaches = () => {
      const current = call.session.quality?.level;
      return current !== undefined && LEVELS.indexOf(current) >= LEVELS.indexOf(level);
    };
    const measured = () => call.session.quality !== undefined;
    let waited = true;
    // Quality needs a few seconds of statistics: wait for the level (or for its opposite with .not).
    try {
      await call.until(() => !measured() || reaches() !== this.isNot, this.timeout);
    } catch {
      waited = false;
    }
    const quality = call.session.quality;
    const pass = reaches();
    const message = () =>
      header(this, 'toHaveQuality', JSON.stringify(level)) +
      `Expected: quality ${this.isNot ? 'below' : 'at least'} ${level}${waited ? '' : ` (waited ${this.timeout} ms)`}\n` +
      (quality === undefined
        ? 'Received: no quality in the session snapshot (the kb-voice in the page does not measure call quality)\n\n'
        : `Received: ${quality === null ? 'null' : `${quality.level} (MOS ${quality.mos ?? '–'}, RTT ${ms(quality.rttMs)}, jitter ${ms(quality.jitterMs)}, loss ${quality.packetLossPct ?? '–'} %)`}\n\n`) +
      call.describe();
    return { pass, message, name: 'toHaveQuality', expected: level, actual: quality?.level };
  },

  async toHaveHeardFromStart(this: ExpectMatcherState, received: Call, options: { within?: number; toleranceMs?: number } = {}) {
    const call = requireCall(received, 'toHaveHeardFromStart');
    const tolerance = options.toleranceMs ?? FROM_START_TOLERANCE_MS;
    const measured = await call.heardFromStart(options.within ?? Math.max(this.timeout, 30_000));
    const pass = 'missedMs' in measured && measured.missedMs <= tolerance;
    const message = () =>
      header(this, 'toHaveHeardFromStart', '') +
      `Expected: the service ${this.isNot ? 'not ' : ''}to hear the first question from within ${tolerance} ms of its onset\n` +
      ('problem' in measured
        ? `Received: ${measured.problem}\n\n`
        : `Received: its first ${measured.missedMs} ms missing (said ${measured.saidMs} ms of speech, the service recorded ${measured.heardMs} ms)${micOpened(measured.micOpenedAfterMs)}\n\n`) +
      call.describe();
    return { pass, message, name: 'toHaveHeardFromStart', expected: tolerance, actual: 'missedMs' in measured ? measured.missedMs : null };
  },
});

/** Where the question began against the page's microphone, for a failure message. */
const micOpened = (ms: number | undefined) =>
  ms === undefined ? '' : `; the page's microphone was given to the call ${Math.abs(ms)} ms ${ms >= 0 ? 'after' : 'before'} the question began`;

/** `toHaveHeardFromStart`'s default: the service heard the question from within this long of its onset (ms). */
export const FROM_START_TOLERANCE_MS = 100;
