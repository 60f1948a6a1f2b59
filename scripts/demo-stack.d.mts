/** Types of scripts/demo-stack.mjs (used by the Playwright tests). */
export interface DemoStackOptions {
  /** Default 8787 (CONTRACT); 0 = ephemeral. */
  emulatorPort?: number;
  /** Default 8788; 0 = ephemeral. */
  relayPort?: number;
  /** Default 5173 (next free port when taken); 0 = ephemeral. */
  pagePort?: number;
  /** Emulator agent build time without warmup (default: the emulator's 5700). */
  agentBuildMs?: number;
  /** Default language of the page (default 'ja'). */
  language?: string;
  /** The emulator's answer voice (default auto: Flite for English, espeak-ng for other languages when installed, else the built-in one). */
  voice?: 'auto' | 'flite' | 'espeak' | 'builtin';
  /** Reload the page when demo/ or dist/ change (default true). */
  watch?: boolean;
  /** Silence Vite's logging. */
  quiet?: boolean;
  /** Host names besides the loopback ones the page, the relay and the emulator's control routes answer to (default none: DNS-rebinding defence). */
  allowedHosts?: string[];
}

export interface DemoStack {
  pageUrl: string;
  relayUrl: string;
  emulator: { url: string; apiKey: string; fixtures: { apiKey: string; robotId: string; datasetId: string } };
  /** The Vite dependency cache of this stack alone (a temporary folder, removed by close()). */
  viteCacheDir: string;
  close(): Promise<void>;
}

export function startDemoStack(options?: DemoStackOptions): Promise<DemoStack>;
