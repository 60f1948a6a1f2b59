import * as z from 'zod/mini';
import { OaiSessionConfigIn } from './openai-realtime.js';

/** Why an OpenAI-dialect call body could not be read; `param` names the part at fault. */
export class OfferBodyError extends Error {
  constructor(
    readonly code: 'unsupported_type' | 'unreadable' | 'missing_sdp' | 'invalid_json' | 'invalid_session',
    readonly param: 'body' | 'sdp' | 'session',
    message: string,
  ) {
    super(message);
    this.name = 'OfferBodyError';
  }
}

/** The offer of a unified-interface call and its optional session configuration. */
export interface OfferBody {
  sdp: string;
  session: OaiSessionConfigIn | undefined;
}

/**
 * Reads the body of `POST …/realtime/calls` (the relay's and the emulator's, one reader): an
 * `application/sdp` offer as is, or `multipart/form-data` with an `sdp` part and an optional `session`
 * part (JSON, validated with `OaiSessionConfigIn`). Any other type, an unparsable form, a missing `sdp`,
 * a `session` that is not JSON or not valid: a thrown `OfferBodyError`. Uses only web globals
 * (`Response`, `FormData`), so it runs in browsers, edge runtimes and Node alike. Size limits are the
 * caller's (the body arrives already read, under its cap).
 */
export async function readOfferBody(text: string, contentType: string): Promise<OfferBody> {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'application/sdp') return { sdp: text, session: undefined };
  if (type !== 'multipart/form-data') throw new OfferBodyError('unsupported_type', 'body', 'send the offer as application/sdp, or multipart/form-data with "sdp" and "session" parts');
  let form: FormData;
  try {
    form = await new Response(text, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new OfferBodyError('unreadable', 'body', 'the multipart body could not be parsed');
  }
  const part = async (name: string) => {
    const value = form.get(name);
    return value === null ? undefined : typeof value === 'string' ? value : await value.text();
  };
  const sdp = await part('sdp');
  if (!sdp) throw new OfferBodyError('missing_sdp', 'sdp', 'the multipart body needs an "sdp" part');
  const sessionText = await part('session');
  if (sessionText === undefined) return { sdp, session: undefined };
  let json: unknown;
  try {
    json = JSON.parse(sessionText);
  } catch {
    throw new OfferBodyError('invalid_json', 'session', 'the "session" part is not valid JSON');
  }
  const parsed = z.safeParse(OaiSessionConfigIn, json);
  if (!parsed.success) throw new OfferBodyError('invalid_session', 'session', `session: ${z.prettifyError(parsed.error)}`);
  return { sdp, session: parsed.data };
}
