import type { ServerEvent, ServerEventOf } from '../../schemas/realtime-events.js';
import type { SessionEffect } from '../effects.js';
import type { PerceivedMarks } from '../quality/perceived.js';
import { turnTiming, type TurnTiming } from './phases.js';

/** What the timeline reads from the session's other collaborators. */
export interface TimelineDeps {
  /** The client's clock (the session's `Clock.now`, the one pings and level readings use). */
  now(): number;
  /** The path's round trip and the service's clock minus the client's (the heartbeat's pongs); null when unknown. */
  rttMs(): number | null;
  offsetMs(): number | null;
  /** The measured ends of the finished turn's perceived latency (the quality tracker's level meter); null when not measured. */
  marks(input: 'voice' | 'text'): PerceivedMarks | null;
  /** The receiver's recent jitter-buffer delay (ms; getStats), null when unknown. */
  bufferingMs(): number | null;
  /** The audio output's latency (ms; the AudioContext's `outputLatency`), null when unknown. */
  playbackMs(): number | null;
}

/** Turns whose service detection time is remembered at most (a service that never completes them cannot grow this). */
const MAX_OPEN = 64;

/**
 * A turn's timeline (`Turn.timing`): the service's end-of-speech detection from the protocol's
 * `input.speech_stopped` (its `at_ms` on the service's clock, mapped with the offset the pongs
 * measured; without one — an OpenAI-dialect server — its arrival less half a round trip), the
 * service's own first-response time from
 * `turn.completed`, and the client's own marks (speech end, first sound out of the receiver, the
 * jitter buffer's and the output's delays). An effect of the session: it only observes.
 */
export class TurnTimeline implements SessionEffect {
  /** Service's end-of-speech detection on the client's clock, by turn number. */
  private readonly detected = new Map<number, number>();
  /** How much of a turn's audio the service took from the pre-connect buffer, by turn number. */
  private readonly preConnect = new Map<number, number>();

  constructor(private readonly deps: TimelineDeps) {}

  /** Every server event of the current connection, as it arrives. */
  event(event: ServerEvent): void {
    if (event.type === 'input.speech_stopped') {
      const offset = this.deps.offsetMs();
      const at = offset === null ? this.deps.now() - (this.deps.rttMs() ?? 0) / 2 : event.at_ms - offset;
      this.detected.set(event.turn_id, at);
      if (this.detected.size > MAX_OPEN) this.detected.delete(this.detected.keys().next().value!);
      if (event.pre_connect_ms) this.preConnect.set(event.turn_id, event.pre_connect_ms);
    }
  }

  /** The timing of a turn that just completed, and the perceived latency its phases add up to. */
  finished(event: ServerEventOf<'turn.completed'>): { timing: TurnTiming; perceivedLatencyMs: number | null } {
    const detectedAt = this.detected.get(event.turn_id) ?? null;
    this.detected.delete(event.turn_id);
    const preConnectMs = this.preConnect.get(event.turn_id);
    this.preConnect.delete(event.turn_id);
    const ends = this.deps.marks(event.input);
    const answered = event.first_response_ms !== null;
    const measured = turnTiming({
      speechEndAt: ends?.speechEndAt ?? null,
      detectedAt: event.input === 'voice' ? detectedAt : null,
      firstResponseMs: event.first_response_ms,
      heardAt: ends?.heardAt ?? null,
      bufferingMs: answered ? this.deps.bufferingMs() : null,
      playbackMs: answered ? this.deps.playbackMs() : null,
    });
    return preConnectMs === undefined ? measured : { ...measured, timing: Object.freeze({ ...measured.timing, preConnectMs: Math.round(preConnectMs) }) };
  }

  /** The connection dropped: its turns will not complete here. */
  lost(): void {
    this.detected.clear();
    this.preConnect.clear();
  }

  close(): void {
    this.lost();
  }
}
