// Next.js App Router app of the matrix. Nothing kb-voice-specific: Next's bundler emits the package's
// literal new URL('./…', import.meta.url) assets (rnnoise's worklet and WebAssembly) as they are.
import { fileURLToPath } from 'node:url';

// The install (node_modules, lockfile) is one folder up, shared by the matrix's apps.
const root = fileURLToPath(new URL('..', import.meta.url));

/** @type {import('next').NextConfig} */
export default {
  reactStrictMode: true,
  poweredByHeader: false,
  turbopack: { root },
  outputFileTracingRoot: root,
};
