import type { Page } from '@playwright/test';
import * as esbuild from 'esbuild';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DemoStack } from '../../scripts/demo-stack.mjs';
import { expect, test } from './fixtures.js';

// <kb-voice-widget> in React 19 with no wrapper: attributes as props, the widget's DOM event as an
// `on…` prop. The app is built here with esbuild (react, react-dom and kb-voice/widget from
// node_modules, i.e. the built dist/), served from the demo stack's origin.
test.use({ micFile: 'e2e-silence.wav' });

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const APP = `
import { createElement as h, StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import 'kb-voice/widget';

function App({ aiId }) {
  const [answers, setAnswers] = useState([]);
  const [status, setStatus] = useState('none');
  return h('main', null,
    h('h1', null, 'React app'),
    h('kb-voice-widget', {
      'relay-url': '/api/voice', 'ai-id': aiId, language: 'en',
      onturn: (event) => setAnswers((list) => [...list, event.detail.answer]),
      onstate: (event) => setStatus(event.detail.state.status),
    }),
    h('p', { 'data-testid': 'react-status' }, status),
    h('ol', null, answers.map((answer, i) => h('li', { key: i, 'data-testid': 'react-answer' }, answer))));
}
createRoot(document.getElementById('root')).render(h(StrictMode, null, h(App, { aiId: document.body.dataset.aiId })));
`;

async function openReactPage(page: Page, stack: DemoStack): Promise<void> {
  const built = await esbuild.build({
    stdin: { contents: APP, resolveDir: ROOT, loader: 'js' },
    bundle: true, format: 'esm', platform: 'browser', minify: true, write: false, logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
    // Not the repo's tsconfig paths (kb-voice/* → src): resolve packages as an app does, to dist/.
    tsconfigRaw: '{}',
  });
  const origin = new URL(stack.pageUrl).origin;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>React</title><script type="module" src="/react/app.js"></script></head>` +
    `<body data-ai-id="${stack.emulator.fixtures.robotId}"><div id="root"></div></body></html>`;
  await page.route(`${origin}/react/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === '/react/index.html') return route.fulfill({ contentType: 'text/html', body: html });
    if (path === '/react/app.js') return route.fulfill({ contentType: 'text/javascript', body: Buffer.from(built.outputFiles[0]!.contents) });
    return route.fulfill({ status: 404 });
  });
  await page.goto(`${origin}/react/index.html`);
}

test('React 19 (StrictMode), no wrapper: attributes as props, onturn/onstate props receive the widget\'s events', async ({ page, stack, emu }) => {
  void emu;
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openReactPage(page, stack);
  const widget = page.locator('kb-voice-widget');
  await expect(widget).toHaveAttribute('ai-id', stack.emulator.fixtures.robotId);
  await widget.getByTestId('call-start').click();
  await expect(widget.getByTestId('call-status')).toHaveText('connected', { timeout: 20_000 });
  await expect(page.getByTestId('react-status')).toHaveText('connected');
  await widget.getByTestId('text-input').fill('How long is the warranty?');
  await widget.getByTestId('text-send').click();
  await expect(page.getByTestId('react-answer')).toContainText(['two-year'], { timeout: 30_000 });
  await widget.getByTestId('call-end').click();
  await expect(page.getByTestId('react-status')).toHaveText('ended', { timeout: 20_000 });
  expect(errors).toEqual([]);
});
