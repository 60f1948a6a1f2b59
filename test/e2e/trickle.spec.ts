import { expect, test } from './fixtures.js';
import { askByText, byTestId, endCall, startCall } from './qa.js';

// Trickle ICE in Chromium, through the relay: the offer is POSTed without waiting for gathering,
// the browser's candidates and end-of-candidates follow by PATCH to the session resource.

test('a trickled call: offer at once, candidates by PATCH to the session resource, then a turn', async ({ page, openDemo, audit }) => {
  const answers: { url: string; status: number; location: string | null }[] = [];
  page.on('response', (r) => {
    if (/\/realtime\/sessions(\/|$)/.test(new URL(r.url()).pathname)) answers.push({ url: r.url(), status: r.status(), location: r.headers()['location'] ?? null });
  });
  // The page's signaling requests as its fetch sent them (bodies included: Playwright does not see
  // the bodies of streamed requests).
  await page.addInitScript(() => {
    const native = window.fetch.bind(window);
    const sent: { method: string; url: string; type: string | null; body: string }[] = ((window as unknown as { sent: unknown[] }).sent = []) as never;
    window.fetch = async (input, init) => {
      const request = new Request(input, init);
      if (/\/realtime\/sessions/.test(request.url)) sent.push({ method: request.method, url: request.url, type: request.headers.get('content-type'), body: await request.clone().text() });
      return native(request);
    };
  });
  const sent = () => page.evaluate(() => (window as unknown as { sent: { method: string; url: string; type: string | null; body: string }[] }).sent);
  await openDemo('?lang=en');
  await startCall(page);
  await expect(byTestId(page, 'call-status')).toHaveText('connected');
  const sessionId = (await byTestId(page, 'session-id').innerText()).trim();

  await expect.poll(async () => (await sent()).some((r) => r.method === 'PATCH' && r.body.includes('a=end-of-candidates')), { timeout: 10_000 }).toBe(true);
  const requests = await sent();
  const offer = requests.find((r) => r.method === 'POST')!;
  // Sent before gathering finished: the offer carries no end-of-candidates, a PATCH does.
  expect(JSON.parse(offer.body).sdp).not.toContain('a=end-of-candidates');
  const patches = requests.filter((r) => r.method === 'PATCH');
  for (const p of patches) {
    expect(new URL(p.url).pathname).toMatch(new RegExp(`^/api/voice/v1/robots/[^/]+/realtime/sessions/${sessionId}$`));
    expect(p.type).toBe('application/trickle-ice-sdpfrag');
  }
  expect(patches.some((p) => /a=candidate:/.test(p.body))).toBe(true);
  await audit.settle();
  expect(audit.relayRequests.filter((r) => r.method === 'PATCH')).toHaveLength(patches.length);
  const post = answers.find((a) => a.url.endsWith('/realtime/sessions'))!;
  expect(post).toMatchObject({ status: 201 });
  expect(post.location).toMatch(new RegExp(`/api/voice/v1/robots/[^/]+/realtime/sessions/${sessionId}$`));
  expect(answers.filter((a) => a.url.includes(`/realtime/sessions/${sessionId}`)).every((a) => a.status === 204)).toBe(true);

  await askByText(page, 'How long is the warranty?');
  await expect(page.locator('[data-testid="turn"][data-input="text"]').last().getByTestId('turn-answer')).not.toBeEmpty({ timeout: 30_000 });
  await endCall(page);
});
