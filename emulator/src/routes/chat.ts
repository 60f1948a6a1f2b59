import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { endpoints, type ChatMessage } from 'kb-voice/schemas';
import { answerFromDataset, estimateTokens } from '../knowledge.js';
import { invalid } from '../http/errors.js';
import { robotOr404 } from '../http/lookup.js';
import { route } from '../http/route.js';
import type { ServerContext } from '../http/server-context.js';
import { sseResponse } from '../http/sse.js';
import { chunkText } from '../prompt-gen.js';

/** Text of an OpenAI message content: a string, or the `text` of its text parts. */
function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part && typeof part === 'object' && 'text' in part && typeof part.text === 'string' ? part.text : ''))
    .join(' ')
    .trim();
}

/**
 * E10: OpenAI-compatible chat completions. `model` names the robot; the last user message is
 * answered from the robot's dataset (in the question's language), as one completion or as
 * `chat.completion.chunk` events followed by `data: [DONE]`.
 */
export function registerChatRoutes(app: Hono, sc: ServerContext): void {
  route(app, sc, endpoints.E10, ({ body }) => {
    const robot = robotOr404(sc.store, body.model);
    const lastUser = body.messages.map((m, i) => ({ m, i })).filter(({ m }) => m.role === 'user').pop();
    if (!lastUser) throw invalid(['body', 'messages'], 'At least one user message is required');
    const question = textOf(lastUser.m.content);
    if (question === '') throw invalid(['body', 'messages', lastUser.i, 'content'], 'The user message has no text');
    const language = /[\u3040-\u30ff\u3400-\u9fff]/.test(question) ? 'ja' : 'en';
    const k = answerFromDataset(sc.store, robot.id, question, language);
    const history = body.messages.filter((_, i) => i !== lastUser.i).reduce((n, m) => n + estimateTokens(textOf(m.content)), 0);
    const id = `chatcmpl-${randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    if (body.stream) {
      const base = { id, object: 'chat.completion.chunk', created, model: robot.id };
      return sseResponse([
        { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
        ...chunkText(k.answer).map((content) => ({ ...base, choices: [{ index: 0, delta: { content }, finish_reason: null }] })),
        { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      ]);
    }
    const prompt_tokens = k.inputTokens + history;
    return {
      json: {
        id, object: 'chat.completion', created, model: robot.id,
        choices: [{ index: 0, message: { role: 'assistant', content: k.answer }, finish_reason: 'stop' }],
        usage: { prompt_tokens, completion_tokens: k.outputTokens, total_tokens: prompt_tokens + k.outputTokens },
        references: k.references,
      },
    };
  });
}
