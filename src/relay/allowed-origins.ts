/**
 * CORS for the configured origins only. Requests carrying an `Origin` that is neither the relay's
 * own origin nor allowed are refused (403) before anything else happens, which also blocks
 * cross-site request forgery when `authorize` relies on cookies.
 */
export class AllowedOrigins {
  readonly #allowed: Set<string>;

  constructor(origins: readonly string[]) {
    this.#allowed = new Set(
      origins.map((o) => {
        let url: URL;
        try {
          url = new URL(o);
        } catch {
          throw new TypeError(`Invalid allowed origin: ${JSON.stringify(o)}`);
        }
        if (url.origin === 'null') throw new TypeError(`Invalid allowed origin: ${JSON.stringify(o)}`);
        return url.origin;
      }),
    );
  }

  /** Whether `origin` (an `Origin` header value) may call cross-origin. */
  allows(origin: string | null): origin is string {
    return origin !== null && this.#allowed.has(origin);
  }

  /** Headers added to every response for an allowed origin. */
  headers(origin: string): Record<string, string> {
    return {
      'access-control-allow-origin': origin,
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': 'retry-after, x-request-id, x-relay-error, location',
      vary: 'Origin',
    };
  }

  /** Headers of a successful preflight answer. */
  preflight(origin: string, methods: readonly string[], requestedHeaders: string | null): Record<string, string> {
    const h: Record<string, string> = {
      ...this.headers(origin),
      'access-control-allow-methods': methods.join(', '),
      'access-control-max-age': '600',
    };
    // The origin is trusted, so the headers its page needs (e.g. for `authorize`) are allowed as asked.
    if (requestedHeaders) h['access-control-allow-headers'] = requestedHeaders;
    return h;
  }
}
