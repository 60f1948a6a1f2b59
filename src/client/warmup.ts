import type { SessionEffect } from './effects.js';
import type { Clock } from '../clock.js';
import type { VoiceSessionOptions } from './options.js';
import type { WarmupStatus } from './state.js';

/** Longest wait between the signaling answer and the E1 warmup when the connection is slow. */
const WARMUP_DEFER_MS = 250;

/**
 * How long a warmup may stay `pending`: then it is `failed`, whatever comes later (a custom `api`
 * object's promise that never settles; the API client's own calls end within its `timeout`).
 */
export const WARMUP_LIMIT_MS = 30_000;

type Target = Pick<VoiceSessionOptions, 'aiId' | 'api' | 'language' | 'userIdentifier'>;

/**
 * The E1 warmup of one call (an effect): fired once, never awaited, its result reported.
 * It goes out once the call is connected ({@link now}), or WARMUP_DEFER_MS after the answer
 * ({@link soon}) if the connection takes longer (TURN, slow ICE): sent together with the answer,
 * its request and the service's work on it measurably delayed the ICE/DTLS handshake (~14 ms of
 * ~125 ms in Chromium), while the agent build it starts takes seconds, so a ~0.1 s later start
 * costs nothing.
 */
export class Warmup implements SessionEffect {
  private _status: WarmupStatus = 'idle';
  private timer: unknown;
  private pendingSessionId: string | undefined;

  constructor(private readonly target: Target, private readonly clock: Clock, private readonly report: (status: WarmupStatus) => void) {}

  get status(): WarmupStatus {
    return this._status;
  }

  /** The service named the session: the warmup goes out at the latest WARMUP_DEFER_MS from now. */
  soon(sessionId: string): void {
    this.timer = this.clock.setTimeout(() => this.now(), WARMUP_DEFER_MS);
    this.pendingSessionId = sessionId;
  }

  /** The call is connected: a warmup still waiting goes out now. */
  now(): void {
    this.cancel();
    const sessionId = this.pendingSessionId;
    this.pendingSessionId = undefined;
    if (sessionId !== undefined) this.fire(sessionId);
  }

  /** Stops the deferral timer (the call is over). */
  /** Connected: the warmup goes now (if it did not already). */
  connected(): void {
    this.now();
  }

  close(): void {
    this.cancel();
  }

  cancel(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Sends E1. Whatever comes back settles the status once: `ok` only for `{ success: true }`;
   * anything else (`success: false`, no body, a 204's `null`, a rejection, a throw, no answer within
   * WARMUP_LIMIT_MS) is `failed`. Nothing it gets can reject or throw out of here.
   */
  private fire(sessionId: string): void {
    const { aiId, api, language, userIdentifier } = this.target;
    this.set('pending');
    const limit = this.clock.setTimeout(() => this.settle('failed'), WARMUP_LIMIT_MS);
    const outcome = (res: unknown): WarmupStatus => ((res as { success?: unknown } | null | undefined)?.success === true ? 'ok' : 'failed');
    let request: Promise<unknown>;
    try {
      request = Promise.resolve(api.realtime.warmup(aiId, { language: language ?? 'ja', session_id: sessionId, ...(userIdentifier ? { user_identifier: userIdentifier } : {}) }));
    } catch (error) {
      // A custom api object that throws instead of rejecting.
      request = Promise.reject(error);
    }
    const done = (status: WarmupStatus) => {
      this.clock.clearTimeout(limit);
      this.settle(status);
    };
    request.then((res) => done(outcome(res)), () => done('failed'));
  }

  /** The first result of a pending warmup wins (the limit, or the answer). */
  private settle(status: WarmupStatus): void {
    if (this._status === 'pending') this.set(status);
  }

  private set(status: WarmupStatus): void {
    this._status = status;
    this.report(status);
  }
}
