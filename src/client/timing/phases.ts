/**
 * Where a voice turn's perceived latency went (`Turn.timing`, docs/quality.md "Where the time
 * goes"). Five phases follow each other from the end of the caller's speech to the first answer
 * sound at the ear; each is `null` when it could not be measured, and when all five are known
 * they add up to `Turn.perceivedLatencyMs` exactly.
 */
export interface TurnTiming {
  /** When the phases begin: the caller's speech end as the client heard it (ms since the epoch, the session's clock); null when not heard. */
  speechEndAt: number | null;
  /** Caller's speech end (as the client heard it) → the service detected it (its end-of-speech wait, the caller's audio on its way). */
  endpointingMs: number | null;
  /** The service's detection → its first answer audio sent (the service's own `first_response_ms`). */
  serviceMs: number | null;
  /** First answer audio sent → its first packet received by the client. */
  networkMs: number | null;
  /** First packet received → out of the jitter buffer into the page (the receiver's jitter-buffer delay). */
  bufferingMs: number | null;
  /** Out of the page → at the ear (the audio output's latency, as the browser reports it). */
  playbackMs: number | null;
  /**
   * How much of the turn's audio (ms, as the service counts it, pre-roll included) came from the
   * pre-connect buffer (said before the call was connected); absent when none did.
   */
  preConnectMs?: number;
}

/** The phases, in order. */
export const TIMING_PHASES = Object.freeze(['endpointing', 'service', 'network', 'buffering', 'playback'] as const);
export type TimingPhase = (typeof TIMING_PHASES)[number];

/** A timing with nothing measured (a typed question without answer audio, a service that says nothing). */
export const UNMEASURED_TIMING = Object.freeze(
  Object.fromEntries([['speechEndAt', null], ...TIMING_PHASES.map((p) => [`${p}Ms`, null])]) as TurnTiming,
);

/** What one turn's timeline gathered; times on the client's clock (ms), durations in ms. */
export interface TurnMarks {
  /** The caller's speech ended, as the client's microphone level heard it. */
  speechEndAt: number | null;
  /** The service detected the end of speech (its event's time mapped onto the client's clock). */
  detectedAt: number | null;
  /** The service's detection → its first answer audio (`first_response_ms`). */
  firstResponseMs: number | null;
  /** The answer's first sound came out of the receiver (the output level meter). */
  heardAt: number | null;
  /** The receiver's jitter-buffer delay. */
  bufferingMs: number | null;
  /** The audio output's latency. */
  playbackMs: number | null;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/**
 * The phases of one turn from its marks, and the perceived latency they add up to: from the
 * speech end to the first sound out of the receiver, plus the output's latency when known.
 *
 * The service's detection and the first packet are estimates (the clock offset is known to half a
 * round trip, the jitter buffer's delay as a recent mean): they are kept in order between the
 * measured ends, so no phase is negative and the five always add up to the perceived latency.
 */
export function turnTiming(m: TurnMarks): { timing: TurnTiming; perceivedLatencyMs: number | null } {
  const r = (v: number | null) => (v === null || !Number.isFinite(v) ? null : Math.max(0, Math.round(v)));
  const service = r(m.firstResponseMs);
  const buffering = r(m.bufferingMs);
  const playback = r(m.playbackMs);
  const start = m.speechEndAt ?? 0;
  // On a timeline starting at the speech end, in whole ms; null without both measured ends.
  const heard = m.speechEndAt === null || m.heardAt === null || m.heardAt < start ? null : Math.round(m.heardAt - start);
  const detected = heard === null || m.detectedAt === null ? null : clamp(Math.round(m.detectedAt - start), 0, heard);
  const sent = detected === null || service === null ? null : clamp(detected + service, detected, heard!);
  // Without the jitter buffer's delay the first packet is placed at the sound: network then holds
  // the whole delivery (buffering included, itself null), and the phases still add up.
  const packet = heard === null ? null : buffering === null ? heard : clamp(heard - buffering, sent ?? 0, heard);
  return {
    timing: Object.freeze({
      speechEndAt: heard === null ? null : Math.round(start),
      endpointingMs: detected,
      serviceMs: sent === null ? service : sent - detected!,
      networkMs: sent === null || packet === null ? null : packet - sent,
      bufferingMs: packet === null || buffering === null ? buffering : heard! - packet,
      playbackMs: playback,
    }),
    perceivedLatencyMs: heard === null ? null : heard + (playback ?? 0),
  };
}
