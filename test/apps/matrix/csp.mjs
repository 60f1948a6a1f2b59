/**
 * The strict Content-Security-Policy every app of the matrix is served with (issue 45; docs/csp.md): no
 * 'unsafe-inline', no 'unsafe-eval'. 'wasm-unsafe-eval' lets rnnoise's WebAssembly compile; the AudioWorklet
 * falls under script-src; worker-src is what a typical app sets (kb-voice starts no worker).
 * `scriptSources` adds to script-src, `styleSources` to style-src (Next.js: its per-request 'nonce-…',
 * which also lets the widget's nonce'd `<style>` through where a browser has no constructable stylesheets).
 * @param {string} relayOrigin
 * @param {string} [scriptSources]
 * @param {string} [styleSources]
 */
export function strictCsp(relayOrigin, scriptSources = '', styleSources = '') {
  return [
    "default-src 'none'",
    `script-src 'self'${scriptSources ? ` ${scriptSources}` : ''} 'wasm-unsafe-eval'`,
    `style-src 'self'${styleSources ? ` ${styleSources}` : ''}`,
    `connect-src 'self' ${relayOrigin}`,
    "media-src 'self' blob:",
    "worker-src 'self'",
  ].join('; ');
}
