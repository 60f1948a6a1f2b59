/**
 * The emulator's realtime price table, in **USD per 1 million tokens** (the spec does not show the
 * unit; the emulator uses USD per 1M tokens for `unit_price` and USD for `cost`). The figures follow
 * the published list prices of a typical realtime speech model and are fixed so costs are
 * reproducible:
 *
 * | category       | meaning                                           | USD / 1M tokens |
 * |----------------|---------------------------------------------------|-----------------|
 * | `text_input`   | prompt text tokens (question, retrieved context)  | 4.00            |
 * | `audio_input`  | user speech tokens                                | 32.00           |
 * | `cached_input` | prompt tokens served from the prompt cache        | 0.40            |
 * | `text_output`  | answer text tokens                                | 16.00           |
 * | `audio_output` | assistant speech tokens                           | 64.00           |
 *
 * `cached_input` tokens are counted apart from `text_input`/`audio_input` (a token is in exactly one
 * category), so `cache_hit_rate = cached / (text_input + audio_input + cached)`.
 * Audio is tokenized at {@link AUDIO_TOKENS_PER_SECOND} (10/s heard, 20/s spoken).
 */
export const PRICE_TABLE = {
  text_input: 4.0,
  audio_input: 32.0,
  cached_input: 0.4,
  text_output: 16.0,
  audio_output: 64.0,
} as const;

export type CostCategory = keyof typeof PRICE_TABLE;

/** Category order of the E11 `items` array. */
export const COST_CATEGORIES: readonly CostCategory[] = ['text_input', 'audio_input', 'cached_input', 'text_output', 'audio_output'];

/** Model name reported by E11/E12 for the seeded robot. */
export const REALTIME_MODEL = 'gpt-realtime';

/** Audio tokens per second of speech. */
export const AUDIO_TOKENS_PER_SECOND = { input: 10, output: 20 } as const;

/** Audio tokens for `ms` of speech heard (`input`) or spoken (`output`). */
export function audioTokens(ms: number, direction: 'input' | 'output'): number {
  return Math.round((Math.max(0, ms) / 1000) * AUDIO_TOKENS_PER_SECOND[direction]);
}

/** Token counts per category (the numeric fields of a usage record). */
export interface TokenCounts {
  input_text_tokens: number;
  input_audio_tokens: number;
  cached_tokens: number;
  output_text_tokens: number;
  output_audio_tokens: number;
}

const FIELD: Record<CostCategory, keyof TokenCounts> = {
  text_input: 'input_text_tokens',
  audio_input: 'input_audio_tokens',
  cached_input: 'cached_tokens',
  text_output: 'output_text_tokens',
  audio_output: 'output_audio_tokens',
};

/** Rounds a USD amount to micro-dollars, so sums print without float noise. */
export const roundUsd = (usd: number) => Math.round(usd * 1e6) / 1e6;

/** Cost items of token counts, one per category in {@link COST_CATEGORIES} order. */
export function costItems(counts: TokenCounts): { category: CostCategory; tokens: number; unit_price: number; cost: number }[] {
  return COST_CATEGORIES.map((category) => {
    const tokens = counts[FIELD[category]];
    return { category, tokens, unit_price: PRICE_TABLE[category], cost: roundUsd((tokens * PRICE_TABLE[category]) / 1e6) };
  });
}

/** Total USD cost of token counts. */
export function totalCost(counts: TokenCounts): number {
  return roundUsd(costItems(counts).reduce((sum, item) => sum + item.cost, 0));
}
