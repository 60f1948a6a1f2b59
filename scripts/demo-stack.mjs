// The demo stack: emulator + relay (admin role for the QA page) + the Vite dev server of demo/.
// Used by `npm run demo` (scripts/demo.mjs) and by the Playwright tests (test/e2e/stack.ts), which
// start their own stack on ephemeral ports so they never collide with a running demo.
// It imports the BUILT package (`kb-voice/...`, package self-reference), so run `npm run build` first.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HOST = '127.0.0.1';
const DEMO_ROOT = fileURLToPath(new URL('../demo/', import.meta.url));

/**
 * @typedef {object} DemoStackOptions
 * @property {number} [emulatorPort]  default 8787 (CONTRACT); 0 = ephemeral
 * @property {number} [relayPort]     default 8788; 0 = ephemeral
 * @property {number} [pagePort]      default 5173 (next free port when taken); 0 = ephemeral
 * @property {number} [agentBuildMs]  emulator agent build time without warmup (default: emulator's 5700)
 * @property {string} [language]      default language of the page (default 'ja')
 * @property {'auto'|'flite'|'espeak'|'builtin'} [voice] emulator's answer voice (default auto: Flite for English, espeak-ng for other languages when installed)
 * @property {boolean} [quiet]        silence Vite's own logging
 * @property {string[]} [allowedHosts] host names besides the loopback ones the page, the relay and the
 *                                    emulator's control routes answer to (default none: DNS-rebinding defence)
 * @property {string} [network]      a network-lab profile (kb-voice-emulator/lab) every call's media goes through, e.g. `3g-poor`
 * @property {boolean} [watch]        reload the page when demo/ or dist/ change (default true); tests
 *                                    turn it off so a concurrent `npm run build` cannot reload a page mid-call
 */

/**
 * Starts the three servers on loopback and resolves once all accept requests.
 * @param {DemoStackOptions} [options]
 */
export async function startDemoStack(options = {}) {
  const { startEmulator } = await import('kb-voice-emulator');
  const { createRelay, serveRelay } = await import('kb-voice/relay');
  const { createServer: createViteServer } = await import('vite');

  const closers = [];
  const close = async () => {
    // Reverse order: page first, emulator last, so nothing calls a server that is already gone.
    for (const fn of closers.splice(0).reverse()) {
      await fn().catch((error) => console.error('kb-voice demo: shutdown error:', error));
    }
  };

  try {
    // Loopback host names only (plus the ones asked for): a page whose own name resolves to
    // 127.0.0.1 (DNS rebinding) must not reach the admin relay or the emulator's control routes.
    const extraHosts = options.allowedHosts ?? [];
    const emulator = await startEmulator({
      host: HOST,
      controlHosts: extraHosts,
      port: options.emulatorPort ?? 8787,
      ...(options.agentBuildMs === undefined ? {} : { agentBuildMs: options.agentBuildMs }),
      ...(options.voice === undefined ? {} : { realtime: { voice: options.voice } }),
      ...(options.network === undefined ? {} : { network: options.network }),
    });
    closers.push(() => emulator.close());

    // The page origin must be known before the relay is created (its allowed origins).
    const pagePort = await pickPort(options.pagePort ?? 5173);
    const pageOrigins = [`http://${HOST}:${pagePort}`, `http://localhost:${pagePort}`];

    const relay = createRelay({
      upstream: emulator.url,
      apiKey: emulator.apiKey,
      prefix: '/api/voice',
      allowedOrigins: pageOrigins,
      allowedHosts: ['loopback', ...extraHosts],
      // The QA page is an administrator's tool: it may see every session of the robot.
      robots: '*',
      authorize: async () => ({ role: 'admin', userIdentifier: 'qa' }),
      // Grants of this stack only (the admin page needs none to read; OpenAI-route ids are minted with it).
      secret: randomUUID(),
    });
    const relayServer = await serveRelay(relay, { host: HOST, port: options.relayPort ?? 8788 });
    closers.push(() => relayServer.close());
    const relayUrl = relayServer.url;

    // A dependency cache of this server's own: Vite re-optimizes its cache folder (deleting it)
    // when it discovers a dependency, so two stacks at once (Playwright workers) sharing the default
    // node_modules/.vite could pull modules from under each other's page, which then never ran.
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'kb-voice-demo-vite-'));
    closers.push(async () => rmSync(cacheDir, { recursive: true, force: true }));
    const vite = await createViteServer({
      configFile: false,
      root: DEMO_ROOT,
      cacheDir,
      clearScreen: false,
      logLevel: options.quiet ? 'silent' : 'info',
      define: {
        __KB_VOICE_DEMO__: JSON.stringify({ aiId: emulator.fixtures.robotId, language: options.language ?? 'ja' }),
      },
      server: {
        host: HOST,
        port: pagePort,
        strictPort: true,
        // Vite answers localhost and IP addresses only by default; the extra names are the stack's.
        ...(extraHosts.length ? { allowedHosts: extraHosts } : {}),
        // Same origin for page and API: the browser needs no CORS and never sees the key.
        proxy: {
          '/api/voice': { target: relayUrl, changeOrigin: false },
          // The QA script field (demo/ui/script.ts): the emulator's loopback-only control route, no key.
          '/_emulator/script': { target: emulator.url, changeOrigin: false },
        },
        warmup: { clientFiles: ['./main.ts'] },
        ...(options.watch === false ? { hmr: false, watch: null } : {}),
      },
    });
    closers.push(() => vite.close());
    await vite.listen();

    return {
      pageUrl: `http://${HOST}:${pagePort}/`,
      relayUrl,
      emulator: { url: emulator.url, apiKey: emulator.apiKey, fixtures: emulator.fixtures },
      viteCacheDir: cacheDir,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** `wanted` when it is free (or an ephemeral port for 0); otherwise the next free port above it. */
async function pickPort(wanted) {
  if (wanted === 0) return listenOnce(0);
  for (let port = wanted; port < wanted + 50; port++) {
    const got = await listenOnce(port).catch(() => null);
    if (got !== null) return got;
  }
  throw new Error(`kb-voice demo: no free port in ${wanted}..${wanted + 49}`);
}

function listenOnce(port) {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(port, HOST, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : port));
    });
  });
}
