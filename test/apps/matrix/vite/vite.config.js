// Vite as an app would configure it; the only kb-voice-specific line is none: the widget and
// kb-voice/noise's worklet and WebAssembly need no plugin, alias or copy step. The headers are the
// matrix's strict CSP for the dev server (the production build is served by the test's server).
import { defineConfig } from 'vite';


export default defineConfig({
  root: import.meta.dirname,
  // Relative asset URLs: the test serves the build from a subfolder.
  base: './',
  logLevel: 'warn',
  clearScreen: false,
  server: {
    host: '127.0.0.1',
    strictPort: true,
    headers: process.env.KB_VOICE_CSP ? { 'content-security-policy': process.env.KB_VOICE_CSP } : {},
  },
  build: { outDir: 'dist', emptyOutDir: true },
});
