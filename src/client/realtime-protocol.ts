/**
 * A realtime protocol: how a session signals and what its data-channel messages look like. The
 * option `protocol` of VoiceSession takes one; the default is kb-voice v1 (`v1Protocol`),
 * `openaiProtocol()` speaks OpenAI's. (The wire transport is transport.ts; the API client's HTTP
 * layer is api/http.ts.)
 */
import type { ClientEvent, ServerEvent } from '../schemas/realtime-events.js';
import type { Clock } from '../clock.js';
import type { InterruptionsObject } from '../schemas/realtime.js';
import type { VoiceSessionError } from './errors.js';
import type { VoiceSessionApi } from './report.js';
import type { SignalingAnswer } from './transport.js';

/** What a protocol's signaling needs for one attempt. */
export interface SignalingRequest {
  aiId: string;
  api: VoiceSessionApi;
  language: string;
  userIdentifier?: string;
  /** Set when the attempt continues an existing session (reconnection). */
  sessionId?: string;
  interruptions?: InterruptionsOption;
  /** `push-to-talk`: the client ends each utterance (`input.commit`); default `auto` (the service's VAD). */
  turnTaking?: 'auto' | 'push-to-talk';
  signal: AbortSignal;
}

/**
 * Option `interruptions`: `auto` (default) lets the caller's speech cut an answer, `off` queues it as
 * the next turn; the object form also sets how long speech must last to cut it (`minSpeechMs`) and
 * when a held answer resumes after a false interruption (`resumeAfterMs`).
 */
export type InterruptionsOption = 'auto' | 'off' | InterruptionsObject;

/** The mode of an `interruptions` option (`auto` when unset). */
export function interruptionMode(option: InterruptionsOption | undefined): 'auto' | 'off' {
  return typeof option === 'object' ? option.mode ?? 'auto' : option ?? 'auto';
}

/**
 * What the session tells the service, typed: a client event without the wire's protocol version
 * (`{ type: 'session.end' }`, `{ type: 'ping', t }`). The attempt adds the version and the
 * session's codec encodes it for its protocol (v1 as it is, OpenAI's mapped), so no collaborator
 * writes a wire message.
 */
export type Command = ClientEvent extends infer E ? (E extends { v: unknown } ? Omit<E, 'v'> : never) : never;

/** Reads and writes one session's protocol messages; it may keep state (it lives as long as the session). */
export interface RealtimeProtocolCodec {
  /** The events a message means, in kb-voice v1 terms (none: ignore it), or the protocol_error to report. */
  decode(text: string): readonly ServerEvent[] | VoiceSessionError;
  /**
   * The message(s) for one client event, sent in order (undefined or none: this protocol has no such
   * message, nothing is sent); throws a local ValidationError for bad input.
   */
  encode(event: ClientEvent): string | readonly string[] | undefined;
  /** Messages the codec wants sent after decoding one (a protocol's deferred request); optional. */
  takeReplies?(): readonly string[];
}

/** A realtime protocol: signaling, data-channel label and message format. The default is kb-voice v1. */
export interface RealtimeProtocol {
  readonly channel: string;
  /** false: the protocol has no ping/pong, so the session's heartbeat is off (default true). */
  readonly heartbeat?: boolean;
  /** Exchanges the offer for the answer; failures are thrown as they come (the session maps them to codes). */
  signal(offer: { sdp: string }, request: SignalingRequest): Promise<SignalingAnswer>;
  /**
   * Sends an sdpfrag to the session's resource (trickle ICE, ICE restart); see
   * {@link SignalingResource.patch}. A protocol without it gets offers that carry their candidates.
   */
  patch?(sessionId: string, fragment: string, request: SignalingRequest): Promise<string | null>;
  /** Makes the codec of one session; `clock` is the session's (a codec that measures time reads it). */
  codec(clock: Clock): RealtimeProtocolCodec;
}

/** @deprecated The old name of {@link RealtimeProtocol} (the type of the option `protocol`). */
export type Dialect = RealtimeProtocol;
/** @deprecated The old name of {@link RealtimeProtocolCodec}. */
export type DialectCodec = RealtimeProtocolCodec;
