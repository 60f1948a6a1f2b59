/**
 * The widget's stylesheet, scoped to its shadow root (nothing leaks into the page). Inherited
 * properties do cross a shadow boundary, so `:host` starts from `all: initial` (font, colour,
 * text-align, line-height, letter-spacing, word-spacing, text-transform, white-space, visibility...)
 * and sets `direction` itself (`all` leaves it alone): the page's `body`/`#root` rules stay out.
 * Rules the page puts on the element itself still win over `:host` (that is how it is themed). Pages theme it through the custom properties on `:host` (inherited through
 * the shadow boundary) and the `part` names (`::part(button)`, ...). The default colours pass WCAG
 * AA contrast (4.5:1 for text) on the default background.
 */
export const WIDGET_CSS: string = `
:host {
  --kbv-font: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans JP", sans-serif;
  --kbv-bg: #ffffff;
  --kbv-fg: #1b1f24;
  --kbv-muted: #505a66;
  --kbv-border: #c4cad3;
  --kbv-accent: #1f4fc2;
  --kbv-accent-fg: #ffffff;
  --kbv-user: #1f4fc2;
  --kbv-assistant: #6a2f9e;
  --kbv-error: #a1231b;
  --kbv-error-bg: #fdf0ef;
  --kbv-focus: #c2410c;
  --kbv-radius: 12px;
  all: initial;
  direction: ltr;
  unicode-bidi: isolate;
  display: block;
  box-sizing: border-box;
  width: 100%;
  max-width: 28rem;
  font: 15px/1.45 var(--kbv-font);
  color: var(--kbv-fg);
}
:host([hidden]) { display: none; }
:host([dir="rtl"]) { direction: rtl; }
*, *::before, *::after { box-sizing: border-box; }
.panel {
  display: grid; gap: .75rem; padding: 1rem; min-inline-size: 0;
  background: var(--kbv-bg); color: var(--kbv-fg);
  border: 1px solid var(--kbv-border); border-radius: var(--kbv-radius);
}
.head { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; justify-content: space-between; }
.title { font-weight: 600; margin: 0; font-size: 1rem; }
.status { display: inline-flex; align-items: center; gap: .4rem; font-size: .9rem; color: var(--kbv-muted); }
.status::before { content: ""; inline-size: .6rem; block-size: .6rem; border-radius: 50%; background: var(--kbv-border); }
.status[data-status="connecting"]::before, .status[data-status="reconnecting"]::before { background: var(--kbv-accent); animation: kbv-pulse 1s ease-in-out infinite alternate; }
.status[data-status="connected"]::before { background: #1d7a3a; }
.status[data-status="failed"]::before { background: var(--kbv-error); }
@keyframes kbv-pulse { from { opacity: 1; } to { opacity: .25; } }
.controls { display: flex; flex-wrap: wrap; gap: .5rem; }
button {
  font: inherit; min-block-size: 2.5rem; padding: .4rem .9rem; cursor: pointer;
  border-radius: calc(var(--kbv-radius) / 1.5); border: 1px solid var(--kbv-border);
  background: var(--kbv-bg); color: var(--kbv-fg);
}
button:hover:not(:disabled) { border-color: var(--kbv-accent); }
button:disabled { opacity: .5; cursor: not-allowed; }
button.primary { background: var(--kbv-accent); border-color: var(--kbv-accent); color: var(--kbv-accent-fg); }
button[aria-pressed="true"] { border-color: var(--kbv-fg); box-shadow: inset 0 0 0 1px var(--kbv-fg); }
/* Held, not clicked: no text selection, callout or scrolling under a finger. */
button.talk { touch-action: none; user-select: none; -webkit-user-select: none; -webkit-touch-callout: none; }
button.talk[aria-pressed="true"] { background: var(--kbv-accent); border-color: var(--kbv-accent); color: var(--kbv-accent-fg); }
.check { font-size: .9rem; border: 1px solid var(--kbv-border); border-radius: calc(var(--kbv-radius) / 1.5); padding: .5rem .75rem; }
.check[data-grade="good"] { border-color: #1d7a3a; }
.check[data-grade="warning"] { border-color: #9a6700; }
.check[data-grade="bad"] { border-color: var(--kbv-error); }
.check ul { margin: .25rem 0 0; padding-inline-start: 1.1rem; }
.check li[data-grade="bad"] strong { color: var(--kbv-error); }
.check-heading { margin: 0; font-weight: 600; }
.hint { margin: 0; font-size: .85rem; color: var(--kbv-muted); }
:focus-visible { outline: 3px solid var(--kbv-focus); outline-offset: 2px; }
.level { display: flex; align-items: center; gap: .5rem; font-size: .85rem; color: var(--kbv-muted); }
.meter { flex: 1; block-size: .5rem; border-radius: .25rem; background: #e6e9ee; overflow: hidden; }
.meter > span { display: block; block-size: 100%; inline-size: 100%; background: var(--kbv-accent);
  transform-origin: left; transform: scaleX(0); transition: transform 90ms linear; }
.devices { display: flex; flex-wrap: wrap; gap: .5rem 1rem; font-size: .85rem; color: var(--kbv-muted); }
.devices label { display: flex; align-items: center; gap: .4rem; min-inline-size: 0; }
.devices select { font: inherit; max-inline-size: 12rem; color: var(--kbv-fg); background: var(--kbv-bg); border: 1px solid var(--kbv-border); border-radius: .4rem; }
[hidden] { display: none !important; }
.captions {
  display: grid; gap: .35rem; align-content: start; margin: 0; padding: .5rem;
  min-block-size: 4rem; max-block-size: 14rem; overflow-y: auto; overflow-wrap: anywhere;
  border: 1px solid var(--kbv-border); border-radius: calc(var(--kbv-radius) / 1.5);
}
.captions:empty::before { content: attr(data-empty); color: var(--kbv-muted); font-size: .9rem; }
.caption { margin: 0; }
.caption .who { font-weight: 600; margin-inline-end: .35rem; }
.caption[data-role="user"] .who { color: var(--kbv-user); }
.caption[data-role="assistant"] .who { color: var(--kbv-assistant); }
.caption[data-final="false"] { font-style: italic; }
.quality { font-size: .8rem; padding: .1rem .45rem; border-radius: 999px; background: var(--kbv-error-bg); color: var(--kbv-error); }
.quality[hidden] { display: none; }
.latency { margin: 0; font-size: .85rem; color: var(--kbv-muted); }
.latency:empty { display: none; }
form { display: flex; gap: .5rem; min-inline-size: 0; }
input {
  flex: 1; min-inline-size: 0; font: inherit; padding: .45rem .6rem; min-block-size: 2.5rem;
  color: var(--kbv-fg); background: var(--kbv-bg);
  border: 1px solid var(--kbv-border); border-radius: calc(var(--kbv-radius) / 1.5);
}
input:disabled { opacity: .6; }
.error {
  margin: 0; padding: .5rem .75rem; border-radius: calc(var(--kbv-radius) / 1.5);
  color: var(--kbv-error); background: var(--kbv-error-bg); border: 1px solid currentColor;
}
.error[hidden] { display: none; }
.visualizer { display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; align-items: center; }
.voice { display: inline-flex; align-items: center; gap: .45rem; font-size: .8rem; color: var(--kbv-muted); }
.bars { display: inline-flex; align-items: center; gap: 3px; block-size: 1.5rem; }
.bars > span { inline-size: 4px; block-size: 100%; border-radius: 2px; background: var(--kbv-user);
  transform: scaleY(.12); transition: transform 100ms linear, opacity 100ms linear; }
.voice[data-voice="assistant"] .bars > span { background: var(--kbv-assistant); }
.visualizer[data-active="false"] .bars > span { opacity: .4; }
/* Still under reduced motion: the bars keep their height, who speaks shows by opacity alone. */
@media (prefers-reduced-motion: reduce) {
  .visualizer[data-active="true"] .voice[data-speaking="false"] .bars > span { opacity: .4; }
}
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { animation: none !important; transition: none !important; }
}
`;

/** The constructed sheets of each document by their CSS, shared by its widgets (adopting does not copy a sheet; a sheet serves only its own document). */
const sheets = new WeakMap<Document, Map<string, CSSStyleSheet>>();

/**
 * Styles a widget's shadow root without inline style, so a strict CSP (`style-src 'self'`, no
 * `'unsafe-inline'`) lets it through: a constructable stylesheet (`adoptedStyleSheets`), which CSP does
 * not govern, where the browser has one (Chromium 73+, Firefox 101+, Safari 16.4+); elsewhere a
 * `<style>` carrying `nonce` (the element's own `nonce` attribute, which the page's CSP must name as
 * `'nonce-…'`), and without a nonce a plain `<style>` (what a page without a CSP needs).
 */
export function styleShadowRoot(root: ShadowRoot, nonce: string, css: string = WIDGET_CSS): void {
  const doc = root.ownerDocument;
  const Sheet = doc.defaultView?.CSSStyleSheet;
  if ('adoptedStyleSheets' in root && Sheet && 'replaceSync' in Sheet.prototype) {
    let ofDoc = sheets.get(doc);
    if (!ofDoc) sheets.set(doc, (ofDoc = new Map()));
    let sheet = ofDoc.get(css);
    if (!sheet) {
      sheet = new Sheet();
      sheet.replaceSync(css);
      ofDoc.set(css, sheet);
    }
    if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
    return;
  }
  const style = doc.createElement('style');
  if (nonce) style.setAttribute('nonce', nonce);
  style.textContent = css;
  // the widget's own sheet first; a part's (the sources UI) after it
  if (css === WIDGET_CSS) root.prepend(style);
  else root.append(style);
}
