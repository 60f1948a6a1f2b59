import * as z from 'zod/mini';
import { CLIENT_EVENTS, ClientEvent, PROTOCOL_VERSION, ServerEvent, toValidationDetail } from 'kb-voice/schemas';

/**
 * The emulator's side of the data-channel protocol v1 (src/schemas/realtime-events.ts): outgoing
 * events are validated before they are sent (a bug here must fail loudly in tests, not reach a
 * client), incoming messages are parsed into a {@link ClientEvent}, ignored when they carry another
 * protocol version, or turned into a `protocol_error` message.
 */

/** A server event without the `v` field, which {@link encodeServerEvent} adds. */
export type OutgoingEvent = ServerEvent extends infer E ? (E extends ServerEvent ? Omit<E, 'v'> : never) : never;

/** Validates and serializes a server event. Throws on an invalid event (a programming error). */
export function encodeServerEvent(event: OutgoingEvent): string {
  const full = { v: PROTOCOL_VERSION, ...event };
  const parsed = ServerEvent.safeParse(full);
  if (!parsed.success) throw new Error(`invalid server event ${event.type}: ${z.prettifyError(parsed.error)}`);
  return JSON.stringify(full);
}

export type ParsedClientMessage =
  | { kind: 'event'; event: ClientEvent }
  | { kind: 'ignored'; reason: string }
  | { kind: 'invalid'; message: string };

/** Parses one data-channel message from the client. */
export function parseClientMessage(data: unknown): ParsedClientMessage {
  let text: string;
  if (typeof data === 'string') text = data;
  else if (data instanceof Uint8Array) text = new TextDecoder().decode(data);
  else if (data instanceof ArrayBuffer) text = new TextDecoder().decode(new Uint8Array(data));
  else return { kind: 'invalid', message: 'message is not text' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { kind: 'invalid', message: `message is not valid JSON: ${(error as Error).message}` };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { kind: 'invalid', message: 'message must be a JSON object' };
  }
  const version = (json as { v?: unknown }).v;
  if (typeof version === 'number' && version !== PROTOCOL_VERSION) {
    return { kind: 'ignored', reason: `protocol version ${version} is not supported` };
  }
  const type = (json as { type?: unknown }).type;
  if (typeof type !== 'string' || !CLIENT_TYPES.includes(type)) {
    const what = type === undefined ? 'Field required' : `${JSON.stringify(type)} is not a client event`;
    return { kind: 'invalid', message: `invalid message: type: ${what} (expected one of ${CLIENT_TYPES.map((t) => `"${t}"`).join(', ')})` };
  }
  const parsed = ClientEvent.safeParse(json);
  if (!parsed.success) return { kind: 'invalid', message: `invalid "${type}" message: ${explain(parsed.error, json)}` };
  return { kind: 'event', event: parsed.data };
}

/** The `type`s a client may send. */
const CLIENT_TYPES: readonly string[] = Object.keys(CLIENT_EVENTS);

/** Every problem as `field: reason`, joined with `; ` (reasons worded as the API's 422 `msg`). */
function explain(error: z.core.$ZodError, input: unknown): string {
  return toValidationDetail(error, 'body', input)
    .map((d) => `${d.loc.slice(1).join('.') || '(message)'}: ${d.msg}`)
    .join('; ');
}
