import { ValidationError } from '../api/errors.js';
import { CLIENT_EVENTS, DATA_CHANNEL_LABEL, PROTOCOL_VERSION, SERVER_EVENTS, type ClientEvent, type ServerEvent } from '../schemas/realtime-events.js';
import type { RealtimeSessionIn } from '../schemas/realtime.js';
import { toValidationDetail } from '../schemas/validation.js';
import { VoiceSessionError } from './errors.js';
import type { RealtimeProtocol, RealtimeProtocolCodec } from './realtime-protocol.js';

/**
 * How many distinct unknown event types, and distinct malformed-message errors, one session reports
 * (one protocol_error each) before it only counts them: a service (or a peer) sending garbage in a
 * loop cannot flood the app with `error` events.
 */
export const MAX_REPORTED_UNKNOWN_TYPES = 16;

/** Whether `kind` is reported: the first of each kind, up to {@link MAX_REPORTED_UNKNOWN_TYPES} kinds; every one counted in `counts`. Every codec reports this way. */
export function firstOfKind(counts: Map<string, number>, kind: string): boolean {
  const seen = counts.get(kind);
  if (seen === undefined && counts.size >= MAX_REPORTED_UNKNOWN_TYPES) return false;
  counts.set(kind, (seen ?? 0) + 1);
  return seen === undefined;
}

/** The schema of a known event type (own keys only: `toString` is not an event). */
const schemaOf = <T extends object>(table: T, type: unknown): T[keyof T] | undefined =>
  typeof type === 'string' && Object.hasOwn(table, type) ? table[type as keyof T] : undefined;

/** A v1 message whose type this client does not know (sent by a newer service). */
export class UnknownEvent {
  constructor(readonly type: string) {}
}

/**
 * Reads one data-channel message: the event, `undefined` for a message of another protocol
 * version (the protocol says to ignore those), the type of an event this client does not know
 * ({@link UnknownEvent}), or the `protocol_error` to report.
 */
export function parseServerEvent(text: string): ServerEvent | VoiceSessionError | UnknownEvent | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return new VoiceSessionError('protocol_error', 'Data-channel message is not JSON', { cause: err });
  }
  const version = (data as { v?: unknown } | null)?.v;
  if (typeof version === 'number' && version !== PROTOCOL_VERSION) return undefined;
  const type = (data as { type?: unknown } | null)?.type;
  const schema = schemaOf(SERVER_EVENTS, type);
  if (version === PROTOCOL_VERSION && typeof type === 'string' && !schema) return new UnknownEvent(type);
  if (!schema) {
    const what = typeof data !== 'object' || data === null || Array.isArray(data) ? 'not an object' : type === undefined ? 'type: missing' : `type: not a known event type (${JSON.stringify(type).slice(0, 64)})`;
    return new VoiceSessionError('protocol_error', `Invalid data-channel message: ${what}`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${typeof type === 'string' ? type : 'message'}.${issue.path.join('.')}: ` : '';
    return new VoiceSessionError('protocol_error', `Invalid data-channel message: ${where}${issue?.message ?? 'unknown'}`, { cause: parsed.error });
  }
  return parsed.data as ServerEvent;
}

/** One client event, checked against its type's schema; throws a local ValidationError for bad input (each codec's `encode` starts here). */
export function checkClientEvent(event: ClientEvent): ClientEvent {
  const schema = schemaOf(CLIENT_EVENTS, (event as { type?: unknown } | null)?.type);
  const parsed = schema?.safeParse(event);
  if (!parsed?.success) {
    const detail = parsed ? toValidationDetail(parsed.error, 'body', event) : [{ loc: ['body', 'type'], msg: 'Not a client event type', type: 'union_tag_invalid' }];
    throw new ValidationError(detail, { local: true, ...(parsed ? { cause: parsed.error } : {}) });
  }
  return parsed.data as ClientEvent;
}

/** Validates one client event and returns its JSON; throws a local ValidationError for bad input. */
export function encodeClientEvent(event: ClientEvent): string {
  return JSON.stringify(checkClientEvent(event));
}

/**
 * The kb-voice v1 codec. An event type it does not know (a newer service of the same protocol
 * version) is ignored: the first message of each type is reported once as `protocol_error`, later
 * ones only counted in `ignored`. A malformed message likewise: once per distinct error, counted in
 * `malformed`.
 */
export function v1Codec(): RealtimeProtocolCodec & { readonly ignored: ReadonlyMap<string, number>; readonly malformed: ReadonlyMap<string, number> } {
  const ignored = new Map<string, number>();
  /** Malformed messages by their error's message, reported the same way as unknown types. */
  const malformed = new Map<string, number>();
  return {
    ignored,
    malformed,
    decode(text) {
      const result = parseServerEvent(text);
      if (result === undefined) return [];
      if (result instanceof VoiceSessionError) return firstOfKind(malformed, result.message) ? result : [];
      if (result instanceof UnknownEvent) {
        const type = result.type;
        return firstOfKind(ignored, type) ? new VoiceSessionError('protocol_error', `Unknown event type "${type.slice(0, 64)}" ignored (reported once per type)`) : [];
      }
      return [result];
    },
    encode: encodeClientEvent,
  };
}

/** kb-voice protocol v1: signaling through the API's realtime `connect`, data channel `kb-voice`. */
export const v1Protocol: RealtimeProtocol = {
  channel: DATA_CHANNEL_LABEL,
  async signal(offer, request) {
    const answer = await request.api.realtime.connect(request.aiId, {
      type: 'offer', sdp: offer.sdp, language: request.language,
      ...(request.userIdentifier ? { user_identifier: request.userIdentifier } : {}),
      ...(request.sessionId ? { session_id: request.sessionId } : {}),
      // The object form goes as it is (a service that knows it reads its timings).
      ...(request.interruptions ? { interruptions: request.interruptions as RealtimeSessionIn['interruptions'] } : {}),
      ...(request.turnTaking === 'push-to-talk' ? { turn_taking: request.turnTaking } : {}),
    }, { signal: request.signal });
    return { sessionId: answer.session_id, sdp: answer.sdp };
  },
  // The 201's Location is the session resource (CONTRACT: `/v1/robots/{ai_id}/realtime/sessions/{session_id}`);
  // the API client remembers it per session and sends the PATCH there (by the ids when there was none).
  patch(sessionId, fragment, request) {
    const trickle = request.api.realtime.trickle;
    if (!trickle) return Promise.reject(Object.assign(new Error('this API object has no realtime.trickle'), { status: 405 }));
    return trickle(request.aiId, sessionId, fragment, { signal: request.signal });
  },
  codec: v1Codec,
};
