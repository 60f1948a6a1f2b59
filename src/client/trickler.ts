import { formatSdpFragment, iceCredentials, sdpMedia, type SdpFragmentMedia } from '../schemas/sdpfrag.js';
import { sleep, type Clock } from '../clock.js';
import { classifyFailure } from './errors.js';
import { fixedPauses, RetrySchedule } from './retry.js';
import type { SignalingResource } from './transport.js';

/** Tries of one PATCH when it fails and may work later (network, 5xx); a 4xx is not repeated. */
export const MAX_TRIES = 3;

/** Pause between two tries of one PATCH (clock time). */
export const RETRY_PAUSE_MS = 200;

/**
 * Sends a caller's candidates to the session resource as WHIP does: one PATCH at a time, each
 * carrying every candidate gathered meanwhile (and end-of-candidates once gathering completed).
 * Candidates of an older ICE generation (their `ufrag` is not the current one) are dropped.
 * `refusal` resolves when the service answered 404/405: it takes no trickle. A PATCH that fails
 * otherwise is tried again ({@link MAX_TRIES}, {@link RETRY_PAUSE_MS} apart on the session's
 * clock) while the failure may pass (network, 5xx); then its candidates are dropped (the far side
 * may still find this side from its own checks).
 */
export class CandidateTrickler {
  readonly refusal: Promise<void>;
  private refuse!: () => void;
  private queue: { candidate: string; mid: string | undefined }[] = [];
  private credentials: { ufrag: string; pwd: string } | undefined;
  private media: { mline: string; mid: string }[] = [];
  private ended = false;
  private endSent = false;
  private started = false;
  private stopped = false;
  private refused = false;
  private restarting = false;
  private inflight: Promise<void> | undefined;

  constructor(private readonly resource: SignalingResource, private readonly clock: Clock) {
    this.refusal = new Promise((resolve) => (this.refuse = resolve));
  }

  /** The local offer whose credentials and media sections the fragments name. */
  describe(offerSdp: string): void {
    this.credentials = iceCredentials(offerSdp);
    this.media = sdpMedia(offerSdp);
  }

  add(candidate: string, mid: string | undefined): void {
    if (this.stopped || this.refused) return;
    this.queue.push({ candidate, mid });
    this.schedule();
  }

  /** Gathering completed: end-of-candidates goes with the next PATCH. */
  end(): void {
    this.ended = true;
    this.schedule();
  }

  /** The resource exists (the answer arrived): PATCHing may begin. */
  start(): void {
    this.started = true;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.queue = [];
  }

  /**
   * Sends the new credentials of an ICE restart offer (after any PATCH in flight) and returns the
   * service's answer fragment; candidates of the new generation follow in later PATCHes.
   */
  async restart(offerSdp: string, credentials: { ufrag: string; pwd: string }): Promise<string | null> {
    this.restarting = true;
    try {
      await this.inflight;
      this.describe(offerSdp);
      this.ended = false;
      this.endSent = false;
      const first = this.media[0];
      return await this.resource.patch(formatSdpFragment({ ...credentials, media: first ? [{ ...first, candidates: [] }] : [], endOfCandidates: false }));
    } finally {
      this.restarting = false;
      this.schedule();
    }
  }

  private schedule(): void {
    if (!this.started || this.stopped || this.refused || this.restarting || this.inflight) return;
    if (this.queue.length === 0 && !(this.ended && !this.endSent)) return;
    this.inflight = this.flush().finally(() => {
      this.inflight = undefined;
      this.schedule();
    });
  }

  private async flush(): Promise<void> {
    const ufrag = this.credentials?.ufrag;
    const batch = this.queue.splice(0).filter((c) => {
      const own = /\bufrag (\S+)/.exec(c.candidate)?.[1];
      return own === undefined || own === ufrag;
    });
    const end = this.ended && !this.endSent;
    const media: SdpFragmentMedia[] = [];
    for (const c of batch) {
      const section = this.media.find((m) => m.mid === c.mid) ?? this.media[0];
      if (!section) continue;
      let entry = media.find((m) => m.mid === section.mid);
      if (!entry) media.push((entry = { ...section, candidates: [] }));
      entry.candidates.push(c.candidate.replace(/^a=/, ''));
    }
    if (end && media.length === 0 && this.media[0]) media.push({ ...this.media[0], candidates: [] });
    const fragment = formatSdpFragment({ ...this.credentials, media, endOfCandidates: end });
    const schedule = new RetrySchedule({ clock: this.clock, policy: fixedPauses(RETRY_PAUSE_MS, MAX_TRIES) });
    for (let pause = schedule.next(); pause !== null && !this.stopped; pause = schedule.next()) {
      if (pause > 0) await sleep(this.clock, pause);
      if (this.stopped) return;
      try {
        await this.resource.patch(fragment);
        break;
      } catch (err) {
        const { status } = classifyFailure(err);
        if (status === 404 || status === 405) {
          this.refused = true;
          this.refuse();
          return;
        }
        if (!schedule.failed(err)) break;
      }
    }
    // Sent, or given up: end-of-candidates is not repeated either way.
    if (end) this.endSent = true;
  }
}
