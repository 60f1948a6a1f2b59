import * as z from 'zod/mini';
import { maybe } from './common.js';

/** E2/E3 request (prompt generation). */
export const GenPromptIn = z.strictObject({
  prompt_in: z.optional(z.string()),
  ai_id: z.optional(z.string()),
  cur_prompt: z.optional(z.string()),
  stream: z.optional(z.boolean()),
  message_id: z.optional(z.string()),
});
export type GenPromptIn = z.input<typeof GenPromptIn>;

/** E2/E3 response. */
export const GenPromptOut = z.looseObject({
  prompt: maybe(z.string()),
  role: maybe(z.string()),
  general: maybe(z.string()),
  change_summary: maybe(z.string()),
});
export type GenPromptOut = z.infer<typeof GenPromptOut>;

/**
 * One Server-Sent Event of E3 with `stream: true` (the project's choice; the spec does not show
 * it): `data: {"delta":"..."}` per chunk of the generated prompt, then `data: [DONE]`.
 */
export const GenPromptStreamChunk = z.looseObject({ delta: z.string() });
export type GenPromptStreamChunk = z.infer<typeof GenPromptStreamChunk>;
