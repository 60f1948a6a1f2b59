// Types of scripts/chromium.mjs (imported by playwright.config.ts and test/e2e).
export declare const NO_CHROMIUM_MESSAGE: string;
export declare const CHROMIUM_ARGS: readonly string[];
export interface FoundChromium {
  source: 'CHROMIUM_PATH' | 'debian' | 'playwright';
  /** Undefined for Playwright's own browser, which Playwright locates itself. */
  executablePath: string | undefined;
}
export declare function findChromium(): FoundChromium | null;
export declare function chromiumLaunchOptions(extraArgs?: readonly string[]): {
  executablePath?: string;
  args: string[];
};
