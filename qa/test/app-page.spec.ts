import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { expect, test } from 'kb-voice-qa';

// Testing an app's own page: a static page with the <kb-voice-widget> (kb-voice's one-file widget
// build), served with page.route on the relay's origin. install() before goto(), a click on the
// widget's own Start button, then attach() gives the same Call API for the widget's session.
// voice: { emulator: { agentBuildMs: 300 }, language: 'en' } for the whole project (playwright.config.ts).

const widgetBuild = createRequire(import.meta.url).resolve('kb-voice/widget/standalone');

test('the widget page is attached: spoken and typed questions, answers and evidence', async ({ voiceCall, page }, testInfo) => {
  const origin = new URL(voiceCall.relayUrl).origin;
  const relayPath = new URL(voiceCall.relayUrl).pathname;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
    <script type="module" src="/shop/kb-voice-widget.js"></script></head>
    <body><h1>Kettle shop</h1>
    <kb-voice-widget relay-url="${relayPath}" ai-id="${voiceCall.aiId}" language="en"></kb-voice-widget></body></html>`;
  const script = await readFile(widgetBuild, 'utf8');
  await page.route(`${origin}/shop/**`, (route) =>
    route.request().url().endsWith('.js')
      ? route.fulfill({ contentType: 'text/javascript', body: script })
      : route.fulfill({ contentType: 'text/html', body: html }),
  );

  await voiceCall.install(page);
  await page.goto(`${origin}/shop/`);
  await page.getByTestId('call-start').click();
  const call = await voiceCall.attach(page);
  await expect(page.getByTestId('call-status')).toHaveText('connected');

  await call.say('How long is the warranty?');
  await expect(call).toAnswer(/warrant/i, { within: 20_000 });
  // The widget shows what the session heard.
  await expect(page.getByTestId('caption').last()).toContainText(/warrant/i);

  await page.getByTestId('text-input').fill('How much do replacement filters cost?');
  await page.getByTestId('text-send').click();
  const typed = await call.nextTurn();
  expect(typed).toMatchObject({ input: 'text', question: 'How much do replacement filters cost?' });

  const report = await call.end();
  expect(report.turns.map((t) => t.input)).toEqual(['voice', 'text']);
  await expect(page.getByTestId('call-status')).toHaveText('ended');
  expect(testInfo.attachments.filter((a) => a.name === 'voice-call.json')).toHaveLength(1);
});

test('attach() without install() says what to do', async ({ voiceCall, page }) => {
  await expect(voiceCall.attach(page)).rejects.toThrow(/install\(page\) before page\.goto\(\)/);
});
