import * as z from 'zod/mini';
import { maybe } from './common.js';

/**
 * E10 request: OpenAI-compatible chat completions. The spec does not show the body; the project
 * follows the OpenAI shape and uses `model` to name the robot (its `ai_id`). Unknown OpenAI options
 * (temperature, top_p, ...) are accepted and ignored.
 */
export const ChatMessage = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool', 'developer']),
  content: z.union([z.string(), z.array(z.unknown()), z.null()]),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

export const ChatCompletionIn = z.looseObject({
  model: z.string().check(z.minLength(1)),
  messages: z.array(ChatMessage).check(z.minLength(1)),
  stream: z.optional(z.boolean()),
});
export type ChatCompletionIn = z.input<typeof ChatCompletionIn>;

/** E10 response (non-stream). */
export const ChatCompletionOut = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.int(),
      message: z.looseObject({ role: z.literal('assistant'), content: z.nullable(z.string()) }),
      finish_reason: maybe(z.string()),
    }),
  ),
  usage: maybe(z.looseObject({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() })),
});
export type ChatCompletionOut = z.infer<typeof ChatCompletionOut>;

/** One streamed chunk of E10 with `stream: true` (`data: {...}` lines, then `data: [DONE]`). */
export const ChatCompletionChunk = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion.chunk'),
  created: z.number(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.int(),
      delta: z.looseObject({ role: z.optional(z.string()), content: maybe(z.string()) }),
      finish_reason: maybe(z.string()),
    }),
  ),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunk>;
