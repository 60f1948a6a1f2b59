import dgram from 'node:dgram';

/**
 * A UDP relay standing between a caller and the emulator's ICE candidate, so a test can cut the
 * network path of a live call for real: `drop()` closes the relay, and every packet of the old path
 * is lost from then on (as when a NAT binding or a Wi-Fi network changes).
 */
export class UdpRelay {
  private readonly outer = dgram.createSocket('udp4');
  private readonly inner = new Map<string, dgram.Socket>();
  private closed = false;
  port = 0;

  constructor(
    readonly address: string,
    private readonly target: { address: string; port: number },
  ) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.outer.bind(0, this.address, resolve));
    this.port = this.outer.address().port;
    this.outer.on('message', (msg, from) => {
      if (this.closed) return;
      const key = `${from.address}:${from.port}`;
      let socket = this.inner.get(key);
      if (!socket) {
        const s = (socket = dgram.createSocket('udp4'));
        this.inner.set(key, s);
        s.bind(0, this.address);
        s.on('message', (back) => {
          if (!this.closed) this.outer.send(back, from.port, from.address);
        });
      }
      socket.send(msg, this.target.port, this.target.address);
    });
    return this;
  }

  /** The path dies: nothing passes any more, in either direction. */
  drop(): void {
    if (this.closed) return;
    this.closed = true;
    this.outer.close();
    for (const s of this.inner.values()) s.close();
  }
}

const CANDIDATE_LINE = /^a=candidate:\S+ \d+ udp \d+ (\d+\.\d+\.\d+\.\d+) (\d+) typ host.*$/im;

/**
 * A fetch for the API client that routes a call's media through {@link UdpRelay}s: the service's
 * host candidate (in the answer, and in an ICE restart's answer fragment) is replaced by a fresh
 * relay's, and the caller's own candidates are removed from offers and PATCHes, so the service
 * can only reach the caller through the relay (it learns the relay's address from the checks).
 */
export function relayedFetch() {
  const relays: UdpRelay[] = [];
  const requests: { method: string; path: string; contentType: string | null; body: string; status: number }[] = [];
  const stripCandidates = (sdp: string) => sdp.split(/\r?\n/).filter((l) => !l.startsWith('a=candidate:')).join('\r\n');

  async function throughRelay(sdp: string): Promise<string> {
    const m = CANDIDATE_LINE.exec(sdp);
    if (!m) return sdp;
    const relay = await new UdpRelay(m[1]!, { address: m[1]!, port: Number(m[2]) }).start();
    relays.push(relay);
    const lines = sdp.split(/\r?\n/);
    const first = lines.findIndex((l) => l === m[0]);
    const kept = lines.filter((l, i) => !l.startsWith('a=candidate:') || i === first);
    // (the relay's candidate takes the place of the service's first IPv4 one)
    return kept.map((l) => (l.startsWith('a=candidate:') ? l.replace(`${m[1]} ${m[2]} typ host`, `${relay.address} ${relay.port} typ host`) : l)).join('\r\n');
  }

  const fetchImpl: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    let body = request.method === 'GET' ? '' : await request.text();
    const contentType = request.headers.get('content-type');
    if (request.method === 'POST' && url.pathname.endsWith('/realtime/sessions')) {
      const json = JSON.parse(body) as { sdp: string };
      body = JSON.stringify({ ...json, sdp: stripCandidates(json.sdp) });
    } else if (request.method === 'PATCH') {
      body = stripCandidates(body);
    }
    const response = await fetch(new Request(request, { body: request.method === 'GET' ? null : body }));
    requests.push({ method: request.method, path: url.pathname, contentType, body, status: response.status });
    if (request.method === 'POST' && url.pathname.endsWith('/realtime/sessions') && response.status === 201) {
      const json = (await response.json()) as { sdp: string };
      const headers = new Headers(response.headers);
      headers.delete('content-length');
      return new Response(JSON.stringify({ ...json, sdp: await throughRelay(json.sdp) }), { status: 201, headers });
    }
    if (request.method === 'PATCH' && response.status === 200) {
      const headers = new Headers(response.headers);
      headers.delete('content-length');
      return new Response(await throughRelay(await response.text()), { status: 200, headers });
    }
    return response;
  };
  return { fetch: fetchImpl, relays, requests, close: () => relays.forEach((r) => r.drop()) };
}
