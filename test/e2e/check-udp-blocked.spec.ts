import type { KbVoiceWidget } from 'kb-voice/widget';
import { createServer as createTurnServer } from 'turn-server';
import { chromiumLaunchOptions } from '../../scripts/chromium.mjs';
import { AUDIO_DIR, expect, test } from './fixtures.js';
import { freeLoopbackPort } from '../helpers/free-port.js';
import { openWidgetPage } from './widget-page.js';

// "Test my setup" on a network that blocks UDP (issue 48): Chromium told to send no UDP but through
// a proxy or TURN (`--webrtc-ip-handling-policy=disable_non_proxied_udp`, what a UDP-blocking
// firewall leaves a browser), so it gathers no UDP candidate. Without TURN the check says calls need
// TURN over TCP; with a real TURN server over TCP on loopback (turn-server, pure JavaScript) it is good.
test.use({
  launchOptions: chromiumLaunchOptions([
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-audio-capture=${AUDIO_DIR}/e2e-question.wav`,
  ]),
});

const CREDENTIALS = { username: 'check', credential: 'check-secret-1' };

test('UDP blocked: bad "needs TURN over TCP"; good through a TURN server over TCP', async ({ page, stack }) => {
  const turn = createTurnServer({ auth: { mechanism: 'long-term', realm: 'kb-voice.test', credentials: { [CREDENTIALS.username]: CREDENTIALS.credential } }, relay: { ip: '127.0.0.1' } });
  // A browser that closes its peer connection resets its TCP connection to TURN: the server reports
  // that as an 'error' event, which an EventEmitter without a listener throws (ECONNRESET). Anything
  // else fails the test.
  const serverErrors: Error[] = [];
  turn.on('error', (error: Error) => {
    if ((error as { code?: string }).code !== 'ECONNRESET') serverErrors.push(error);
  });
  const port = await freeLoopbackPort();
  await new Promise<void>((resolve) => {
    turn.on('listening', () => resolve());
    turn.listen([{ port, transport: 'tcp', address: '127.0.0.1' }]);
  });
  try {
    const widget = await openWidgetPage(page, stack);
    const network = widget.locator('[data-testid="check-result"] li[data-part="network"]');
    await widget.getByTestId('check-start').click();
    await expect(widget.getByTestId('check-result')).toHaveAttribute('data-grade', 'bad', { timeout: 20_000 });
    await expect(network).toHaveAttribute('data-code', 'needs_turn_tcp');
    await expect(network).toContainText('TURN server over TCP');

    await widget.evaluate((el: KbVoiceWidget, iceServers) => { el.sessionOptions = { ...el.sessionOptions, iceServers }; },
      [{ urls: `turn:127.0.0.1:${port}?transport=tcp`, ...CREDENTIALS }]);
    await widget.getByTestId('check-start').click();
    await expect(network).toHaveAttribute('data-code', 'turn_tcp', { timeout: 20_000 });
    await expect(network).toHaveAttribute('data-grade', 'good');
    await expect(widget.getByTestId('check-result')).toHaveAttribute('data-grade', 'good');
    expect(serverErrors).toEqual([]);
  } finally {
    await new Promise<void>((resolve) => turn.drain(0, () => resolve()));
  }
});
