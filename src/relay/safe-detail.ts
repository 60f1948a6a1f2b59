import type { ValidationErrorItem } from '../schemas/index.js';
import { boundedDetail, MAX_DETAIL_ITEMS } from './errors.js';

/** Longest `detail` text (or 422 `msg`) passed on from the upstream. */
export const MAX_DETAIL_CHARS = 300;

/**
 * What looks like an internal address: a URL, an IPv4 or bracketed IPv6 address, `localhost`, a
 * `host:port`, or a dotted host name (`db-3.prod.internal`). Conservative: a message naming a file
 * (`report.pdf`) is withheld too, which costs the caller a generic text, never a leak.
 */
const ADDRESS = /[a-z][a-z0-9+.-]*:\/\/|\b\d{1,3}(?:\.\d{1,3}){3}\b|\[[0-9a-f:.]*:[0-9a-f:.]*\]|\blocalhost\b|\b[a-z0-9-]+:\d{2,5}\b|\b[a-z0-9-]+(?:\.[a-z0-9-]+)+\.[a-z]{2,}\b|\b[a-z0-9-]+\.(?:internal|local|lan|corp|svc|cluster|intranet|home)\b/i;

// Control characters (other than none at all) have no place in a message shown to a user.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Escapes a JSON decoder or a URL decoder would undo, undone here once more (`\/`, `\u003a`, `%3A`): filtering sees what a reader would. */
function decoded(text: string): string {
  let out = text.replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))).replace(/\\(["\\/bfnrt])/g, '$1');
  if (out.includes('%')) {
    try {
      out = decodeURIComponent(out);
    } catch {
      // Not URL-encoded text: filtered as it is.
    }
  }
  return out;
}

/** One message made safe, or undefined when it must be withheld. */
function safeText(text: string, unsafe: (text: string) => boolean): string | undefined {
  const plain = decoded(text).replace(CONTROL, ' ').trim();
  if (plain === '' || plain.length > MAX_DETAIL_CHARS || ADDRESS.test(plain) || unsafe(plain) || unsafe(text)) return undefined;
  return plain;
}

/**
 * An upstream error's `detail` reduced to what a caller may see: a string, or a 422's items with only
 * `loc`, `msg` and `type` (no echoed `input` or `ctx`). Text is decoded (JSON and percent escapes)
 * before it is filtered, control characters become spaces, and a text that names an internal address
 * or holds what `unsafe` finds (the key, the upstream's own address) withholds the whole detail
 * (undefined: the caller gets a generic message with the status).
 */
export function safeDetail(detail: string | readonly ValidationErrorItem[], unsafe: (text: string) => boolean): string | ValidationErrorItem[] | undefined {
  if (typeof detail === 'string') return safeText(detail, unsafe);
  const items: ValidationErrorItem[] = [];
  // Checked as received (a cut text could hide what the filter looks for), then bounded: the items
  // past the first MAX_DETAIL_ITEMS are only counted.
  for (const item of detail.slice(0, MAX_DETAIL_ITEMS)) {
    const msg = safeText(item.msg, unsafe);
    const type = safeText(item.type, unsafe);
    const loc = item.loc.map((l) => (typeof l === 'number' ? l : safeText(l, unsafe)));
    if (msg === undefined || type === undefined || loc.some((l) => l === undefined)) return undefined;
    items.push({ loc: loc as (string | number)[], msg, type });
  }
  return boundedDetail(detail.length > MAX_DETAIL_ITEMS ? [...items, ...detail.slice(MAX_DETAIL_ITEMS)] : items);
}
