import { hostCandidate, NetworkLab, replaceCandidate, stripCandidates } from 'kb-voice-emulator/lab';

/**
 * A fetch for the API client that routes a call's media through network labs (kb-voice-emulator/lab,
 * with no impairment): the service's host candidate (in the answer, and in an ICE restart's answer
 * fragment) is replaced by a fresh lab's, and the caller's own candidates are removed from offers
 * and PATCHes, so the service can only reach the caller through the lab (it learns the lab's
 * address from the checks). `relays[i].close()` cuts that path for real: every packet of it is
 * lost from then on (as when a NAT binding or a Wi-Fi network changes).
 */
export function relayedFetch() {
  const relays: NetworkLab[] = [];
  const requests: { method: string; path: string; contentType: string | null; body: string; status: number }[] = [];

  async function throughRelay(sdp: string): Promise<string> {
    const candidate = hostCandidate(sdp);
    if (!candidate) return sdp;
    const lab = await NetworkLab.start({ address: candidate.address, port: candidate.port });
    relays.push(lab);
    return replaceCandidate(sdp, candidate, { address: lab.address, port: lab.port });
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
  return { fetch: fetchImpl, relays, requests, close: () => relays.forEach((r) => r.close()) };
}
