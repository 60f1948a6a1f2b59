/** Reads the page's settings from its URL (`?ai_id=UUID&lang=CODE`, CONTRACT.md "Demo page"). */

declare const __KB_VOICE_DEMO__: { aiId: string; language: string } | undefined;

export interface DemoConfig {
  aiId: string;
  language: string;
  /** Where the page reaches its relay: same origin, so the browser needs no CORS and never holds a key. */
  apiBase: string;
}

/** Language tags like `ja`, `en`, `en-US`, `zh-Hant`. */
const LANGUAGE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;

/** Returns the config, or a message in words saying what is wrong with the URL. */
export function readConfig(location: Location): { config: DemoConfig } | { problem: string } {
  const query = new URLSearchParams(location.search);
  // Defaults come from the orchestrator (scripts/demo-stack.mjs) through Vite's `define`.
  const defaults = typeof __KB_VOICE_DEMO__ === 'undefined' ? undefined : __KB_VOICE_DEMO__;
  const aiId = (query.get('ai_id') ?? defaults?.aiId ?? '').trim();
  const language = (query.get('lang') ?? defaults?.language ?? 'ja').trim();
  if (!aiId) {
    return { problem: 'No robot selected: open the page with ?ai_id=<robot id> (the demo command fills it in for the emulator).' };
  }
  if (!LANGUAGE.test(language)) {
    return { problem: `"${language}" is not a language code: use e.g. ?lang=ja or ?lang=en.` };
  }
  const apiBase = new URL('/api/voice', location.origin).toString();
  return { config: { aiId, language, apiBase } };
}
