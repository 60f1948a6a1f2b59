/**
 * The strict Content-Security-Policy every app of the matrix is served with (issue 45): no
 * 'unsafe-inline', no 'unsafe-eval'. 'wasm-unsafe-eval' lets rnnoise's WebAssembly compile; `worker-src`
 * is for completeness (kb-voice starts no worker; the AudioWorklet falls under `script-src`).
 */
export function strictCsp(relayOrigin: string, scriptExtra = ''): string {
  return [
    "default-src 'none'",
    `script-src 'self'${scriptExtra} 'wasm-unsafe-eval'`,
    "style-src 'self'",
    `connect-src 'self' ${relayOrigin}`,
    "media-src 'self' blob:",
    "worker-src 'self'",
  ].join('; ');
}
