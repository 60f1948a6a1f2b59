/**
 * The app matrix (issue 45): kb-voice as users get it — installed from its packed tarballs
 * (test/apps/install.mjs) into small apps built by the tools users use — in Chromium, under the strict
 * CSP of matrix/csp.mjs, against the emulator and the `kb-voice relay` command of the same install.
 * Each app proves: a call answered; the widget styled (its stylesheet, not the browser's defaults);
 * rnnoise running (`noiseSuppression.active === 'rnnoise'`) where it asks for it; spans where it enables
 * kb-voice/otel (webpack); the React hook under StrictMode (Vite dev, React's development build).
 * Any CSP violation (a `securitypolicyviolation` event or Chromium's "Content Security Policy" console
 * error) fails the test.
 */
import { test, expect, type Page, type Locator } from '@playwright/test';
import { cpSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { strictCsp } from './matrix/csp.mjs';
import { serveStatic, type StaticServer } from './static-server.js';
import { freePort, startServices, startUntil, stop, type ServiceStack } from './stack.js';

/** The apps and their install (package.json, lockfile, node_modules): test/apps/matrix. */
const APPS = join(dirname(fileURLToPath(import.meta.url)), 'matrix');
const BIN = (name: string) => join(APPS, 'node_modules', '.bin', name);
/** No telemetry, no browser download, whatever a tool would fetch beyond the npm registry. */
const OFFLINE_ENV = { NEXT_TELEMETRY_DISABLED: '1', PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', CI: '1' };
/** The accent colour of WIDGET_CSS's `button.primary`: only the widget's stylesheet gives the start button it. */
const STYLED_START_BACKGROUND = 'rgb(31, 79, 194)';

test.skip(!existsSync(join(APPS, 'node_modules', 'kb-voice')), 'test/apps/matrix is not installed: node test/apps/matrix/install.mjs (npm test does it)');
// One worker runs the apps one after the other: their builds are the CPU-heavy part, the e2e lanes run beside.
test.describe.configure({ timeout: 300_000 });

let services: ServiceStack;
const ports = { viteDev: 0, static: 0, next: 0 };
const origin = (port: number) => `http://127.0.0.1:${port}`;
let statics: StaticServer;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  for (const key of Object.keys(ports) as (keyof typeof ports)[]) ports[key] = await freePort();
  services = await startServices(APPS, Object.values(ports).map(origin));
  statics = await serveStatic(APPS, () => strictCsp(services.relayOrigin), ports.static);
});

test.afterAll(async () => {
  await statics?.close();
  await services?.close();
});

/** Runs a build command to its end (its output in the error when it fails). */
async function build(command: string, args: string[], cwd: string): Promise<void> {
  const { spawn } = await import('node:child_process');
  const child = spawn(command, args, { cwd, env: { ...process.env, ...OFFLINE_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((r) => child.once('close', r));
  expect(code, `${command} ${args.join(' ')} failed:\n${out}`).toBe(0);
}

/** Collects CSP violations from the page (DOM event, shadow roots' included, and the console). */
async function watchCsp(page: Page): Promise<string[]> {
  const violations: string[] = [];
  await page.exposeFunction('__cspViolation', (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __cspViolation(t: string): void }).__cspViolation(`${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    }, true);
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

function appUrl(base: string, noise: boolean): string {
  const url = new URL(base);
  url.searchParams.set('relay', services.relayUrl);
  url.searchParams.set('ai', services.robotId);
  if (noise) url.searchParams.set('noise', 'rnnoise');
  return url.href;
}

/** The widget: styled, a call answered, rnnoise running when asked, the call ended. */
async function widgetCall(page: Page, { noise }: { noise: boolean }): Promise<void> {
  const widget = page.locator('kb-voice-widget');
  const start = widget.getByTestId('call-start');
  await expect(start).toBeVisible();
  expect.soft(await start.evaluate((el) => getComputedStyle(el).backgroundColor), 'the widget is styled (its stylesheet applied)').toBe(STYLED_START_BACKGROUND);
  await start.click();
  await expect(widget.getByTestId('call-status')).toHaveAttribute('data-status', 'connected', { timeout: 60_000 });
  await askAndHear(widget.getByTestId('text-input'), widget.getByTestId('text-send'),
    widget.getByTestId('caption').and(widget.locator('[data-role="assistant"][data-final="true"]')).first());
  const noiseState = await widget.evaluate((el) => (el as unknown as { snapshot?: { noiseSuppression?: unknown } }).snapshot?.noiseSuppression);
  if (noise) expect.soft(noiseState, 'rnnoise runs').toMatchObject({ requested: 'rnnoise', active: 'rnnoise' });
  await widget.getByTestId('call-end').click();
  await expect(widget.getByTestId('call-status')).toHaveAttribute('data-status', 'ended', { timeout: 30_000 });
}

async function askAndHear(input: Locator, send: Locator, answer: Locator): Promise<void> {
  await input.fill('How long is the warranty?');
  await send.click();
  await expect(answer).toContainText('two-year', { timeout: 45_000 });
}

/** The React hook's call (Vite's and Next's pages): answered, with rnnoise. */
async function hookCall(page: Page): Promise<void> {
  await page.getByTestId('hook-start').click();
  await expect(page.getByTestId('hook-status')).toHaveText('connected', { timeout: 60_000 });
  await expect.soft(page.getByTestId('hook-noise'), 'rnnoise runs (hook)').toHaveText('rnnoise');
  await askAndHear(page.getByTestId('hook-input'), page.getByTestId('hook-send'), page.getByTestId('hook-answer').first());
  await page.getByTestId('hook-end').click();
  await expect(page.getByTestId('hook-status')).toHaveText('ended', { timeout: 30_000 });
}

/** Opens the app under the strict CSP, makes its calls (the widget's, the hook's where it has one), and fails on any violation. */
async function appCalls(page: Page, base: string, { noise, hook, then }: { noise: boolean; hook: boolean; then?: () => Promise<void> }): Promise<void> {
  const violations = await watchCsp(page);
  await page.goto(appUrl(base, noise));
  await widgetCall(page, { noise });
  if (hook) await hookCall(page);
  await then?.();
  expect(violations, 'CSP violations').toEqual([]);
}

test('Vite dev server: widget and React hook (StrictMode), rnnoise, strict CSP', async ({ page }) => {
  const csp = strictCsp(services.relayOrigin);
  const server = await startUntil(BIN('vite'), ['--config', join(APPS, 'vite', 'vite.config.js'), '--port', String(ports.viteDev), '--logLevel', 'info'],
    { ...OFFLINE_ENV, KB_VOICE_CSP: csp }, /Local:/);
  try {
    await appCalls(page, `${origin(ports.viteDev)}/`, { noise: true, hook: true });
  } finally {
    await stop(server.child);
  }
});

test('Vite production build: widget and React hook, rnnoise, strict CSP', async ({ page }) => {
  await build(BIN('vite'), ['build', '--config', join(APPS, 'vite', 'vite.config.js')], APPS);
  await appCalls(page, `${statics.origin}/vite/dist/`, { noise: true, hook: true });
});

test('webpack 5 build: widget, rnnoise, kb-voice/otel spans, strict CSP', async ({ page }) => {
  await build(BIN('webpack'), ['--config', join(APPS, 'webpack', 'webpack.config.js')], APPS);
  await appCalls(page, `${statics.origin}/webpack/`, {
    noise: true, hook: false,
    then: () => expect.poll(() => page.evaluate(() => (window as unknown as { finishedSpans(): string[] }).finishedSpans()))
      .toEqual(expect.arrayContaining(['realtime_inference', 'kb_voice.connect', 'invoke_agent'])),
  });
});

test('plain HTML page with the one-file <script> (kb-voice/widget/standalone), strict CSP', async ({ page }) => {
  cpSync(join(APPS, 'node_modules', 'kb-voice', 'dist', 'kb-voice-widget.js'), join(APPS, 'plain', 'kb-voice-widget.js'));
  await appCalls(page, `${statics.origin}/plain/`, { noise: false, hook: false });
});

test('Next.js App Router (build + start): server render with the widget and the hook, client calls, rnnoise, nonce CSP (and the nonce\'d <style> fallback)', async ({ page }) => {
  const dir = join(APPS, 'next');
  await build(BIN('next'), ['build', dir], APPS);
  const server = await startUntil(BIN('next'), ['start', dir, '--port', String(ports.next), '--hostname', '127.0.0.1'],
    { ...OFFLINE_ENV, KB_VOICE_RELAY_ORIGIN: services.relayOrigin }, /Ready in|started server|Local:/);
  try {
    // The server render itself: a 200 with the page's markup and a nonce'd CSP (no crash importing the widget and the hook).
    const html = await fetch(appUrl(`${origin(ports.next)}/`, true));
    expect(html.status).toBe(200);
    expect(html.headers.get('content-security-policy')).toMatch(/script-src 'self' 'nonce-[^']+'/);
    expect(await html.text()).toContain('kb-voice-widget');
    await appCalls(page, `${origin(ports.next)}/`, { noise: true, hook: true });
    // A browser without constructable stylesheets (older Safari): the widget styles itself with a
    // <style> carrying its nonce, which the page's CSP names; styled, and no violation.
    const fallback = await page.context().newPage();
    await fallback.addInitScript(() => {
      delete (ShadowRoot.prototype as { adoptedStyleSheets?: unknown }).adoptedStyleSheets;
      delete (Document.prototype as { adoptedStyleSheets?: unknown }).adoptedStyleSheets;
    });
    const violations = await watchCsp(fallback);
    await fallback.goto(appUrl(`${origin(ports.next)}/`, false));
    const start = fallback.locator('kb-voice-widget').getByTestId('call-start');
    await expect(start).toBeVisible();
    expect(await fallback.locator('kb-voice-widget').evaluate((el) => el.shadowRoot!.querySelector('style')?.nonce ? 'nonce style' : 'none'), 'the fallback <style> with the nonce').toBe('nonce style');
    expect(await start.evaluate((el) => getComputedStyle(el).backgroundColor), 'styled by the nonce\'d <style>').toBe(STYLED_START_BACKGROUND);
    expect(violations, 'CSP violations').toEqual([]);
    await fallback.close();
  } finally {
    await stop(server.child);
  }
});
