import { expect, type Page, type Request } from '@playwright/test';

const delay = (ms: number) => new Promise<null>((resolve) => setTimeout(() => resolve(null), ms));

/** E14 through the relay, as the page calls it. */
const E14_ROUTE = /\/api\/voice\/v1\/robots\/[^/?]+\/realtime-audio\/download(\?|$)/;

/** One request the page made, as the browser sent it. */
interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

/**
 * Watches every HTTP request of a page and checks the security promises of the QA page:
 * - the API key never leaves the server side: no header or body carries it, no `Authorization` at all;
 * - the page talks only to its own origin (assets + the relay under /api/voice); the single exception
 *   is the emulator's presigned audio URLs, which are storage downloads by design (like S3 in
 *   production) and must be exactly URLs the relay handed out in an E14 answer.
 * WebRTC media (ICE/RTP) is not HTTP and not seen here: it flows peer to peer by design.
 */
export class RequestAudit {
  readonly seen: Seen[] = [];
  readonly presigned = new Set<string>();
  #pending: Promise<unknown>[] = [];
  readonly #emulatorOrigin: string;
  readonly #pageOrigin: string;

  private constructor(page: Page, private readonly opts: { emulatorUrl: string; apiKey: string; pageUrl: string }) {
    this.#emulatorOrigin = new URL(opts.emulatorUrl).origin;
    this.#pageOrigin = new URL(opts.pageUrl).origin;
    page.on('request', (request) => this.#pending.push(this.#record(request)));
  }

  /**
   * Starts watching `page` (before it loads). E14 answers pass through a route that reads them on
   * their way to the page: a body read afterwards from the response event can be gone on a busy
   * machine (Chromium drops it), and the audio GETs of the URLs it held then looked foreign.
   */
  static async attach(page: Page, opts: { emulatorUrl: string; apiKey: string; pageUrl: string }): Promise<RequestAudit> {
    const audit = new RequestAudit(page, opts);
    await page.route(E14_ROUTE, async (route) => {
      try {
        const response = await route.fetch();
        const body = await response.body();
        if (response.ok()) audit.#collectPresigned(body.toString('utf8'));
        await route.fulfill({ response, body });
      } catch {
        // The page closed (the test ended) or the relay went away: the request fails as it would have.
        await route.abort().catch(() => undefined);
      }
    });
    return audit;
  }

  async #record(request: Request): Promise<void> {
    const url = request.url();
    if (!/^https?:/.test(url)) return;
    // headers() is what the page asked for (fetch/XHR headers included); allHeaders() adds what the
    // network stack sent but waits for the response, so a request that hangs on purpose (warmup
    // fault) is judged on the first set alone.
    const seen: Seen = { method: request.method(), url, headers: request.headers(), body: request.postData() };
    this.seen.push(seen);
    const all = await Promise.race([request.allHeaders().catch(() => null), delay(2_000)]);
    if (all) seen.headers = { ...seen.headers, ...all };
  }

  /** Remembers the presigned URLs the page received from E14 (through the relay). */
  #collectPresigned(text: string): void {
    let body: { segments?: { url?: string }[] } | null;
    try {
      body = JSON.parse(text) as { segments?: { url?: string }[] } | null;
    } catch {
      return;
    }
    for (const segment of body?.segments ?? []) if (segment.url) this.presigned.add(segment.url);
  }

  /** Waits for the asynchronous header/body reads to finish. */
  async settle(): Promise<void> {
    while (this.#pending.length) await Promise.allSettled(this.#pending.splice(0));
  }

  /** Requests the page sent to the relay. */
  get relayRequests(): Seen[] {
    return this.seen.filter((s) => s.url.startsWith(`${this.#pageOrigin}/api/voice/`));
  }

  assertClean(): void {
    const problems: string[] = [];
    for (const s of this.seen) {
      const where = `${s.method} ${s.url}`;
      for (const [name, value] of Object.entries(s.headers)) {
        if (value.includes(this.opts.apiKey)) problems.push(`${where}: header ${name} carries the API key`);
        if (name.toLowerCase() === 'authorization') problems.push(`${where}: sends an Authorization header`);
      }
      if (s.url.includes(this.opts.apiKey)) problems.push(`${where}: URL carries the API key`);
      if (s.body?.includes(this.opts.apiKey)) problems.push(`${where}: body carries the API key`);
      const origin = new URL(s.url).origin;
      if (origin === this.#emulatorOrigin) {
        if (s.method !== 'GET' || !this.presigned.has(s.url)) problems.push(`${where}: calls the emulator directly`);
      } else if (origin !== this.#pageOrigin) {
        problems.push(`${where}: calls a foreign origin`);
      }
    }
    expect(problems, 'requests made by the page').toEqual([]);
  }
}
