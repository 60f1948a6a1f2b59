// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../src/widget/index.js';
import { WIDGET_CSS } from '../../src/widget/styles.js';

// Issue 45: under a strict CSP (`style-src 'self'`) an inline <style> in the shadow root is blocked and the
// widget renders unstyled. The widget adopts a constructed stylesheet instead (CSP does not govern it), with a
// nonce'd <style> where the browser has no constructable stylesheets. The real CSP is proven in Chromium by
// test/apps (a securitypolicyviolation fails those tests).

afterEach(() => {
  document.body.replaceChildren();
  vi.unstubAllGlobals();
});

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function mount(nonce?: string): Promise<ShadowRoot> {
  const el = document.createElement('kb-voice-widget');
  if (nonce) el.setAttribute('nonce', nonce);
  document.body.append(el);
  await flush();
  return el.shadowRoot!;
}

describe('<kb-voice-widget> styles without inline style', () => {
  it('adopts one constructed stylesheet, shared by every widget of the page, and has no <style>', async () => {
    const first = await mount();
    const second = await mount();
    expect(first.querySelector('style')).toBeNull();
    // the widget's sheet, then (sources on) the sources UI's: each one object shared by every widget
    expect(first.adoptedStyleSheets.length).toBeGreaterThanOrEqual(1);
    expect(first.adoptedStyleSheets).toEqual(second.adoptedStyleSheets);
    first.adoptedStyleSheets.forEach((sheet, i) => expect(sheet).toBe(second.adoptedStyleSheets[i]));
    const rules = [...first.adoptedStyleSheets[0]!.cssRules].map((rule) => rule.cssText).join('\n');
    expect(rules).toContain('.panel');
  });

  it('falls back to a <style> with the element\u2019s nonce where constructable stylesheets are missing', async () => {
    const adopted = Object.getOwnPropertyDescriptor(ShadowRoot.prototype, 'adoptedStyleSheets');
    // A browser without them (Safari before 16.4): the property does not exist.
    delete (ShadowRoot.prototype as { adoptedStyleSheets?: unknown }).adoptedStyleSheets;
    try {
      const root = await mount('r4nd0m');
      const style = root.querySelector('style')!;
      expect(style.textContent).toBe(WIDGET_CSS);
      expect(style.getAttribute('nonce')).toBe('r4nd0m');
      expect(root.firstElementChild).toBe(style);
    } finally {
      if (adopted) Object.defineProperty(ShadowRoot.prototype, 'adoptedStyleSheets', adopted);
    }
  });
});
