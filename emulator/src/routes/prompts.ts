import type { Hono } from 'hono';
import { endpoints, type GenPromptIn } from 'kb-voice/schemas';
import { invalid } from '../http/errors.js';
import { messageOr404, robotOr404 } from '../http/lookup.js';
import { route } from '../http/route.js';
import type { ServerContext } from '../http/server-context.js';
import { sseResponse } from '../http/sse.js';
import { chunkText, generatePrompt } from '../prompt-gen.js';

/** E2 and E3. */
export function registerPromptRoutes(app: Hono, sc: ServerContext): void {
  /** Generates from the request, in the context of the robot it names (if any). */
  const generate = (robotId: string | undefined, body: GenPromptIn) => {
    const robot = robotId === undefined ? undefined : robotOr404(sc.store, robotId);
    const dataset = robot ? sc.store.datasets.get(robot.dataset_id) : undefined;
    const example = robot && body.message_id ? messageOr404(sc.store, robot.id, body.message_id) : undefined;
    return generatePrompt({
      metaPrompt: body.prompt_in ?? '',
      currentPrompt: body.cur_prompt ?? robot?.prompt.prompt ?? null,
      robotName: robot?.name ?? 'assistant',
      datasetName: dataset?.name ?? 'knowledge base',
      fileNames: robot ? sc.store.files.find((f) => f.dataset_id === robot.dataset_id).map((f) => f.name) : [],
      ...(example ? { example: { question: example.question ?? '', answer: example.answer ?? '' } } : {}),
    });
  };

  // E2: keeps the robot's prompt information. `cur_prompt` replaces the prompt as given; a
  // `prompt_in` meta prompt regenerates every field from it.
  route(app, sc, endpoints.E2, ({ params, body }) => {
    if (body.ai_id !== undefined && body.ai_id !== params.ai_id) throw invalid(['body', 'ai_id'], 'ai_id does not match the path');
    const robot = robotOr404(sc.store, params.ai_id);
    let prompt = robot.prompt;
    if (body.prompt_in !== undefined && body.prompt_in.trim() !== '') prompt = generate(robot.id, body);
    else if (body.cur_prompt !== undefined) {
      prompt = { ...prompt, prompt: body.cur_prompt, change_summary: robot.prompt.prompt === body.cur_prompt ? 'No changes.' : 'Prompt replaced.' };
    }
    sc.store.robots.patch(robot.id, { prompt });
    return { json: prompt };
  });

  // E3: generates without storing; with stream: true the prompt text arrives as SSE deltas.
  route(app, sc, endpoints.E3, ({ body }) => {
    if (!body.prompt_in || body.prompt_in.trim() === '') throw invalid(['body', 'prompt_in'], 'A meta prompt is required to generate a prompt', 'missing');
    if (body.message_id !== undefined && body.ai_id === undefined) throw invalid(['body', 'ai_id'], 'ai_id is required with message_id', 'missing');
    const out = generate(body.ai_id, body);
    if (body.stream) return sseResponse(chunkText(out.prompt).map((delta) => ({ delta })));
    return { json: out };
  });
}
