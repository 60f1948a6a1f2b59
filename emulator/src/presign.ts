import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Default lifetime of presigned audio URLs: 15 minutes (CONTRACT.md). */
export const DEFAULT_URL_TTL_MS = 15 * 60_000;

/** Outcome of checking a presigned request. */
export type PresignCheck = { ok: true } | { ok: false; reason: 'bad_signature' | 'expired' };

/**
 * Signs download paths with HMAC-SHA256 under a secret drawn at random for each emulator, so URLs
 * of one run never work on another. The query is exactly `expires=<epoch ms>&sig=<hex>`; the
 * signature covers the method, the path and the expiry, and the check compares the raw query text,
 * so changing any character of the query (or of the path) makes the URL invalid.
 */
export class Presigner {
  readonly #secret = randomBytes(32);

  constructor(readonly ttlMs: number = DEFAULT_URL_TTL_MS) {}

  #sign(path: string, expires: number): string {
    return createHmac('sha256', this.#secret).update(`GET\n${path}\n${expires}`).digest('hex');
  }

  /** Returns the path with its signed query, and when it expires. */
  sign(path: string, now = Date.now()): { pathWithQuery: string; expiresAt: Date } {
    const expires = now + this.ttlMs;
    return { pathWithQuery: `${path}?expires=${expires}&sig=${this.#sign(path, expires)}`, expiresAt: new Date(expires) };
  }

  /** Checks a request's path and raw query string (without the `?`). */
  verify(path: string, rawQuery: string, now = Date.now()): PresignCheck {
    const m = /^expires=(\d{1,16})&sig=([0-9a-f]{64})$/.exec(rawQuery);
    if (!m) return { ok: false, reason: 'bad_signature' };
    const expires = Number(m[1]);
    const expected = Buffer.from(this.#sign(path, expires), 'hex');
    const given = Buffer.from(m[2]!, 'hex');
    if (!timingSafeEqual(expected, given)) return { ok: false, reason: 'bad_signature' };
    if (now >= expires) return { ok: false, reason: 'expired' };
    return { ok: true };
  }
}
