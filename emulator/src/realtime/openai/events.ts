import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import { OaiServerEvent } from 'kb-voice/schemas';

/** A server event without its `event_id`, which {@link encodeOaiEvent} assigns. */
export type OaiOutgoing = OaiServerEvent extends infer E ? (E extends OaiServerEvent ? Omit<E, 'event_id'> : never) : never;

/** An id in OpenAI's style (`item_…`, `resp_…`, `event_…`, `ek_…`): prefix and 22 random characters. */
export function oaiId(prefix: string): string {
  return `${prefix}_${randomBytes(17).toString('base64url').replace(/[-_]/g, 'x').slice(0, 22)}`;
}

/**
 * Validates and serializes a server event of the OpenAI protocol. Throws on an invalid event: a bug
 * here must fail loudly in tests instead of reaching a client.
 */
export function encodeOaiEvent(event: OaiOutgoing): string {
  const full = { event_id: oaiId('event'), ...event };
  const parsed = z.safeParse(OaiServerEvent, full);
  if (!parsed.success) throw new Error(`invalid OpenAI realtime event ${event.type}: ${z.prettifyError(parsed.error)}`);
  return JSON.stringify(full);
}

/** An `error` event's body. */
export function oaiError(code: string, message: string, options: { param?: string; eventId?: string; type?: string } = {}): OaiOutgoing {
  return {
    type: 'error',
    error: {
      type: options.type ?? 'invalid_request_error',
      code,
      message,
      param: options.param ?? null,
      event_id: options.eventId ?? null,
    },
  };
}
