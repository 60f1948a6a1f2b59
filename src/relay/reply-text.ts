import { concat, type UpstreamReply } from './message.js';

/** One decoder for every reply: `decode` without `stream` keeps no state between calls, and a decoder per reply cost an ICU converter each. */
const decoder = new TextDecoder();

/** A body over the cap of `readText`. */
export class TooLarge extends Error {}

/** The whole body of an upstream reply as text (UTF-8, replacement characters for invalid bytes); `TooLarge` past `maxBytes` (declared or read), the rest unread. */
export async function readText(reply: UpstreamReply, maxBytes: number): Promise<string> {
  const { body } = reply;
  if (Number(reply.headers.get('content-length') ?? 0) > maxBytes) throw new TooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (body instanceof Uint8Array) {
    if (body.byteLength > maxBytes) throw new TooLarge();
    chunks.push(body);
  } else if (body) {
    for await (const c of body) {
      size += c.byteLength;
      if (size > maxBytes) throw new TooLarge();
      chunks.push(c);
    }
  }
  return decoder.decode(concat(chunks));
}
