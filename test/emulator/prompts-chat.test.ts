import { describe, expect, it } from 'vitest';
import { FIXTURE_IDS } from 'kb-voice-emulator';
import { useEmulator } from '../helpers/emulator.js';

const t = useEmulator();

const META = 'You are a cheerful support agent for the Aozora kettle. Answer in Japanese.\n- Mention the warranty when asked about defects\n- Never promise refunds';
const locs = async (res: Response) => ((await res.json()) as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc);

describe('E3 prompt generation', () => {
  it('generates a structured prompt from the meta prompt, deterministically', async () => {
    const out = await t.api.prompts.generate({ ai_id: t.robotId, prompt_in: META });
    expect(out.role).toBe('cheerful support agent for the Aozora kettle');
    expect(out.prompt).toContain('You are cheerful support agent for the Aozora kettle.');
    expect(out.prompt).toContain('- Mention the warranty when asked about defects');
    expect(out.prompt).toContain('- Never promise refunds');
    expect(out.prompt).toContain('aozora-ak3-faq-ja.md');
    expect(out.general).toContain('Answer in Japanese.');
    expect(out.change_summary).toMatch(/^Added \d+ lines and removed \d+ lines?\.$/);
    expect(await t.api.prompts.generate({ ai_id: t.robotId, prompt_in: META })).toEqual(out);
    // E3 does not store the prompt.
    expect(t.emu.context.store.robots.get(t.robotId)!.prompt.prompt).not.toBe(out.prompt);
  });

  it('streams the same prompt as SSE deltas then [DONE]', async () => {
    const whole = await t.api.prompts.generate({ ai_id: t.robotId, prompt_in: META });
    const deltas: string[] = [];
    for await (const d of t.api.prompts.generateStream({ ai_id: t.robotId, prompt_in: META })) deltas.push(d);
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(whole.prompt);
    const raw = await t.raw('POST', '/v1/ais/gen_prompt', { body: { prompt_in: 'Act as a barista.', stream: true } });
    expect(raw.headers.get('content-type')).toContain('text/event-stream');
    const text = await raw.text();
    expect(text.startsWith('data: {"delta":')).toBe(true);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('uses a message of the robot as an example; validates input', async () => {
    const [m] = t.emu.context.store.messages.find((x) => x.session_id === FIXTURE_IDS.sessions[1]);
    const out = await t.api.prompts.generate({ ai_id: t.robotId, prompt_in: META, message_id: m!.id });
    expect(out.prompt).toContain(`Q: ${m!.question}`);
    expect((await t.raw('POST', '/v1/ais/gen_prompt', { body: { ai_id: t.robotId, prompt_in: META, message_id: 'nope' } })).status).toBe(404);
    expect((await t.raw('POST', '/v1/ais/gen_prompt', { body: { ai_id: 'nope', prompt_in: META } })).status).toBe(404);
    expect(await locs(await t.raw('POST', '/v1/ais/gen_prompt', { body: { stream: 'yes', temperature: 1 } }))).toEqual([['body', 'stream'], ['body', 'temperature']]);
    expect(await locs(await t.raw('POST', '/v1/ais/gen_prompt', { body: {} }))).toEqual([['body', 'prompt_in']]);
    expect((await t.raw('POST', '/v1/ais/gen_prompt', { body: { prompt_in: META }, key: null })).status).toBe(401);
  });
});

describe('E2 prompt update', () => {
  it('keeps cur_prompt as given, or regenerates from prompt_in', async () => {
    const kept = await t.api.prompts.update(t.robotId, { cur_prompt: 'You are Aozora Support. Be brief.' });
    expect(kept.prompt).toBe('You are Aozora Support. Be brief.');
    expect(t.emu.context.store.robots.get(t.robotId)!.prompt.prompt).toBe('You are Aozora Support. Be brief.');
    const generated = await t.api.prompts.update(t.robotId, { prompt_in: META });
    expect(generated.role).toBe('cheerful support agent for the Aozora kettle');
    expect(t.emu.context.store.robots.get(t.robotId)!.prompt).toEqual(generated);
  });

  it('validates and checks the robot', async () => {
    expect(await locs(await t.raw('PUT', `/v1/ais/${t.robotId}/gen_prompt`, { body: { cur_prompt: 3 } }))).toEqual([['body', 'cur_prompt']]);
    expect(await locs(await t.raw('PUT', `/v1/ais/${t.robotId}/gen_prompt`, { body: { ai_id: 'other' } }))).toEqual([['body', 'ai_id']]);
    expect((await t.raw('PUT', '/v1/ais/unknown/gen_prompt', { body: {} })).status).toBe(404);
    expect((await t.raw('PUT', `/v1/ais/${t.robotId}/gen_prompt`, { body: {}, key: null })).status).toBe(401);
  });
});

describe('E10 chat completions', () => {
  it('answers from the robot dataset (OpenAI shape, with usage)', async () => {
    const out = await t.api.chat.completions({ model: t.robotId, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'How much does the kettle cost?' }], temperature: 0.2 });
    expect(out.object).toBe('chat.completion');
    expect(out.model).toBe(t.robotId);
    expect(out.choices[0]!.message.content).toContain('The recommended retail price is 12,800 yen including tax.');
    expect(out.choices[0]!.finish_reason).toBe('stop');
    expect(out.usage!.total_tokens).toBe(out.usage!.prompt_tokens + out.usage!.completion_tokens);
    const ja = await t.api.chat.completions({ model: t.robotId, messages: [{ role: 'user', content: [{ type: 'text', text: '何時間保温できますか？' }] }] });
    expect(ja.choices[0]!.message.content).toContain('最大8時間保温できます');
    const none = await t.api.chat.completions({ model: t.robotId, messages: [{ role: 'user', content: 'Who won the football match yesterday?' }] });
    expect(none.choices[0]!.message.content).toBe("Sorry, I couldn't find information about that in the knowledge base.");
  });

  it('streams chunks then [DONE], concatenating to the same answer', async () => {
    const body = { model: t.robotId, messages: [{ role: 'user' as const, content: 'How do I pair the kettle with the app?' }] };
    const whole = await t.api.chat.completions(body);
    const chunks = [];
    for await (const c of t.api.chat.completionsStream(body)) chunks.push(c);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.map((c) => c.choices[0]!.delta.content ?? '').join('')).toBe(whole.choices[0]!.message.content);
  });

  it('needs no key; 404 for an unknown model; 422 for bad bodies', async () => {
    const path = '/v1/digitals/v1/chat/completions';
    expect((await t.raw('POST', path, { key: null, body: { model: t.robotId, messages: [{ role: 'user', content: 'hi' }] } })).status).toBe(200);
    expect((await t.raw('POST', path, { body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] } })).status).toBe(404);
    expect(await locs(await t.raw('POST', path, { body: { messages: [] } }))).toEqual([['body', 'model'], ['body', 'messages']]);
    expect(await locs(await t.raw('POST', path, { body: { model: t.robotId, messages: [{ role: 'robot', content: 'x' }] } }))).toEqual([['body', 'messages', 0, 'role']]);
    expect(await locs(await t.raw('POST', path, { body: { model: t.robotId, messages: [{ role: 'system', content: 'x' }] } }))).toEqual([['body', 'messages']]);
    expect((await t.raw('POST', path, { body: 'not json' })).status).toBe(422);
  });
});
