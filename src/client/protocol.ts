import { ValidationError } from '../api/errors.js';
import { ClientEvent, PROTOCOL_VERSION, ServerEvent } from '../schemas/realtime-events.js';
import { toValidationDetail } from '../schemas/validation.js';
import { VoiceSessionError } from './errors.js';

/**
 * Reads one data-channel message: the event, `undefined` for a message of another protocol
 * version (the protocol says to ignore those), or the `protocol_error` to report.
 */
export function parseServerEvent(text: string): ServerEvent | VoiceSessionError | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return new VoiceSessionError('protocol_error', 'Data-channel message is not JSON', { cause: err });
  }
  const version = (data as { v?: unknown } | null)?.v;
  if (typeof version === 'number' && version !== PROTOCOL_VERSION) return undefined;
  const parsed = ServerEvent.safeParse(data);
  if (!parsed.success) {
    return new VoiceSessionError('protocol_error', `Invalid data-channel message: ${parsed.error.issues[0]?.message ?? 'unknown'}`, { cause: parsed.error });
  }
  return parsed.data;
}

/** Validates one client event and returns its JSON; throws a local ValidationError for bad input. */
export function encodeClientEvent(event: ClientEvent): string {
  const parsed = ClientEvent.safeParse(event);
  if (!parsed.success) throw new ValidationError(toValidationDetail(parsed.error, 'body', event), { local: true, cause: parsed.error });
  return JSON.stringify(parsed.data);
}
