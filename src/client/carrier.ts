import type { ServerEvent } from '../schemas/realtime-events.js';
import { Attempt, type AttemptSetup } from './attempt.js';
import { classifyFailure, type VoiceSessionError } from './errors.js';
import type { AttemptOutcome, AttemptRequest } from './recovery.js';
import type { ResumeStore } from './resume-store.js';
import type { IceSignaling } from './transport.js';

/** What the current attempt reports, without the attempt (an attempt that is no longer current is not heard). */
export interface CarrierReport {
  /** A signaling answer named the session. */
  answered(sessionId: string): void;
  event(event: ServerEvent): void;
  /** A message the protocol could not decode. */
  invalid(error: VoiceSessionError): void;
  audio(stream: MediaStream): void;
  signaling(mode: IceSignaling): void;
  /** `attempt`'s link closed by itself (this one is told even when `attempt` is no longer current: the session compares). */
  closed(attempt: Attempt): void;
}

/**
 * The attempt carrying the call (one at a time): it opens each new one (the first, continuing a
 * stored session with `resume: true`; each of a recovery), makes it the current one, and passes on
 * only the current attempt's reports.
 */
export class Carrier {
  /** The attempt carrying (or trying to carry) the call. */
  current: Attempt | undefined;
  /** The first attempt named a stored session id (resume after reload). */
  resuming = false;

  constructor(private readonly setup: AttemptSetup, private readonly microphone: () => MediaStream | undefined, private readonly report: CarrierReport) {}

  /** Makes a new attempt the current one and runs it within `timeoutMs` (continuing `sessionId` when given). */
  async open(sessionId: string | undefined, timeoutMs: number): Promise<Attempt> {
    const attempt = (this.current = new Attempt(this.setup, this.microphone(), {
      answered: (from, id) => from === this.current && this.report.answered(id),
      event: (from, event) => from === this.current && this.report.event(event),
      invalid: (from, error) => from === this.current && this.report.invalid(error),
      audio: (from, stream) => from === this.current && this.report.audio(stream),
      signaling: (from, mode) => from === this.current && this.report.signaling(mode),
      closed: (from) => this.report.closed(from),
    }));
    try {
      await attempt.run(sessionId, timeoutMs);
      return attempt;
    } catch (err) {
      if (this.current === attempt) this.current = undefined;
      throw err;
    }
  }

  /**
   * The first attempt: with a recent id in `store` (`resume: true`) it continues that session; when
   * the service refuses it (ended long ago, deleted: a 4xx) and `mayStartOver()`, a new session is
   * made in the time left.
   */
  async first(timeoutMs: number, store: ResumeStore | undefined, mayStartOver: () => boolean): Promise<Attempt> {
    const stored = store?.take();
    if (!store || !stored) return this.open(undefined, timeoutMs);
    const began = this.setup.clock.now();
    this.resuming = true;
    try {
      return await this.open(stored, timeoutMs);
    } catch (err) {
      // Only a refusal (a 4xx: ended long ago, deleted) means the stored session is gone.
      if (!mayStartOver() || classifyFailure(err).retryable) throw err;
      this.resuming = false;
      store.clear();
      return this.open(undefined, Math.max(0, timeoutMs - (this.setup.clock.now() - began)));
    }
  }

  /** Runs a recovery's `steps`: opens each attempt it asks for and answers with the outcome. */
  async follow(steps: AsyncGenerator<AttemptRequest, void, AttemptOutcome>): Promise<void> {
    for (let step = await steps.next(); !step.done;) {
      const { sessionId, timeoutMs } = step.value;
      step = await steps.next(await this.open(sessionId, timeoutMs).then((attempt) => ({ attempt }), (error: unknown) => ({ error })));
    }
  }

  /** Closes the current attempt (its `closed` is not reported); none is current afterwards. */
  drop(): void {
    this.current?.abort();
    this.current = undefined;
  }
}
