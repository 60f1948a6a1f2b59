import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import * as S from '../../src/schemas/index.js';
import { AI, DS, FILE, MSG, integration, message, responses } from '../helpers/samples.js';

const ok = (schema: z.core.$ZodType, value: unknown) => expect(z.safeParse(schema, value).success, JSON.stringify(value)).toBe(true);
const bad = (schema: z.core.$ZodType, value: unknown) => expect(z.safeParse(schema, value).success, JSON.stringify(value)).toBe(false);

describe('responses of every endpoint', () => {
  it.each(Object.entries(responses))('%s: valid sample parses, wrong types fail', (id, sample) => {
    const ep = S.endpoints[id as S.EndpointId];
    ok(ep.response, sample);
    bad(ep.response, 'not an object');
    // The prompt response has only optional members, so a wrong type stands in for a missing one.
    if (id === 'E2' || id === 'E3') bad(ep.response, { prompt: 5 });
    // E4–E8 take any acknowledgement (the spec shows no body), but not one saying it failed.
    else if (['E4', 'E5', 'E6', 'E7', 'E8'].includes(id)) bad(ep.response, { success: false });
    else bad(ep.response, {});
  });
});

// [schema, valid, invalid] for every request, query and resource schema.
const table: [string, z.core.$ZodType, unknown, unknown][] = [
  ['RealtimeWarmupIn', S.RealtimeWarmupIn, {}, { language: 5 }],
  ['RealtimeSessionIn', S.RealtimeSessionIn, { type: 'offer', sdp: 'v=0' }, { type: 'answer', sdp: 'v=0' }],
  ['RealtimeCostQuery', S.RealtimeCostQuery, { start_time: '2026-11-01T00:00:00Z' }, { start_time: 'yesterday' }],
  ['RealtimeUsageQuery', S.RealtimeUsageQuery, { end_time: '2026-11-01T00:00:00+09:00' }, { model: 'x' }],
  ['RealtimeAudioQuery', S.RealtimeAudioQuery, { session_id: 's', segment_index: 0 }, { session_id: 's', segment_index: -1 }],
  ['CostItem', S.CostItem, { category: 'audio_in', tokens: 1, unit_price: 1, cost: 1 }, { category: 'audio_in' }],
  ['SessionCostRecord', S.SessionCostRecord, { session_id: 's' }, { session_id: 's', total_cost: 'one' }],
  ['SessionUsageRecord', S.SessionUsageRecord, { session_id: 's' }, { turn_count: 1 }],
  ['AudioSegment', S.AudioSegment, responses.E14.segments[0], { segment_index: 0 }],
  ['GenPromptIn', S.GenPromptIn, { prompt_in: 'p', stream: true, message_id: 'm' }, { stream: 'yes' }],
  ['GenPromptStreamChunk', S.GenPromptStreamChunk, { delta: 'x' }, { text: 'x' }],
  ['PdfHighlightIn', S.PdfHighlightIn, { file_id: FILE, text: 't', page: 1 }, { file_id: FILE, text: 't', page: 0 }],
  ['PdfPosition', S.PdfPosition, { page: 1, x: 0, y: 0, width: 1, height: 1 }, { page: 1 }],
  ['ChatCompletionIn', S.ChatCompletionIn, { model: AI, messages: [{ role: 'user', content: 'hi' }], temperature: 0.2 }, { model: AI, messages: [] }],
  ['ChatCompletionChunk', S.ChatCompletionChunk, { id: 'c', object: 'chat.completion.chunk', created: 1, model: AI, choices: [] }, { id: 'c', object: 'chat.completion' }],
  ['SessionMessage', S.SessionMessage, message, { ...message, id: 'not-uuid' }],
  ['SessionMessagesQuery', S.SessionMessagesQuery, { session_id: 's', page: 2, size: 1000 }, { session_id: 's', size: 1001 }],
  ['MessageRatingQuery', S.MessageRatingQuery, { session_id: 's', message_id: MSG, rating: -1, source: 'share' }, { session_id: 's', message_id: MSG, rating: 2 }],
  ['MessageRatingIn', S.MessageRatingIn, { feedback_content: 'great', feedback_metadata: { a: 1 } }, { feedback_metadata: 'x' }],
  ['RequestSource', S.RequestSource, 'playground', 'email'],
  ['ReferencesQuery', S.ReferencesQuery, { message_id: MSG }, {}],
  ['RefreshFilesIn', S.RefreshFilesIn, { file_id_list: [FILE], learn_type: 0, embedding: false }, { file_id_list: ['x'] }],
  ['LinkKind', S.LinkKind, 'gitbook', 'ftp'],
  ['AddLinksQuery', S.AddLinksQuery, { links_type: 'sitemap' }, { links_type: 'ftp' }],
  ['AddLinksIn', S.AddLinksIn, { links: ['https://example.com'] }, { links: ['https://example.com'], max_images: 1.5 }],
  ['DeleteFilesIn', S.DeleteFilesIn, { file_ids: [FILE] }, { file_ids: 'x' }],
  ['DatasetConfigsIn', S.DatasetConfigsIn, { metadata: {} }, { metadata: [] }],
  ['User', S.User, integration.created_by, { id: 'x' }],
  ['ShareUrl', S.ShareUrl, integration.detail.share_urls[0], { id: FILE }],
  ['IntegrationDetail', S.IntegrationDetail, integration.detail, { id: FILE, share_urls: 'x' }],
  ['IntegrationRule', S.IntegrationRule, integration, { ...integration, file_count: 1.5 }],
  ['IntegrationsQuery', S.IntegrationsQuery, { type: ['lark'], page: 1, size: 1 }, { page: 0 }],
  ['HTTPValidationError', S.HTTPValidationError, { detail: [{ loc: ['body', 0], msg: 'm', type: 't' }] }, { detail: [{ loc: ['body'], msg: 'm' }] }],
  ['ErrorDetail', S.ErrorDetail, { detail: 'Not found' }, { detail: 1 }],
  ['ServerEvent', S.ServerEvent, { v: 1, type: 'turn.completed', turn_id: 1, message_id: MSG, input: 'voice', question: 'q', answer: 'a', first_response_ms: 800, agent_build_ms: 0, input_duration_ms: 1200, output_duration_ms: 2000, interrupted: false }, { v: 1, type: 'turn.completed', turn_id: 0 }],
  ['ClientEvent', S.ClientEvent, { v: 1, type: 'input.text', text: 'hello' }, { v: 2, type: 'input.text', text: 'hello' }],
];

describe('requests, queries and resources', () => {
  it.each(table)('%s: valid example parses, invalid fails', (_name, schema, valid, invalid) => {
    ok(schema, valid);
    bad(schema, invalid);
  });

  it('applies the spec defaults', () => {
    expect(z.parse(S.RealtimeWarmupIn, {})).toEqual({ language: 'ja' });
    expect(z.parse(S.AddLinksIn, { links: [] })).toEqual({ links: [], spa: false, max_images: 10 });
    expect(z.parse(S.IntegrationsQuery, {})).toEqual({ page: 1, size: 50 });
    expect(z.parse(S.SessionMessagesQuery, { session_id: 's' })).toMatchObject({ page: 1, size: 50 });
    expect(z.parse(S.RealtimeCostQuery, {})).toEqual({ model: 'auto' });
    expect(z.parse(S.AddLinksQuery, {})).toEqual({ links_type: 'website' });
    expect(z.parse(S.User, { id: FILE })).toMatchObject({ corporate: false, is_independent: false });
    const cost = z.parse(S.SessionCostRecord, { session_id: 's' });
    for (const k of ['turn_count', 'duration_ms', 'total_tokens', 'input_text_tokens', 'input_audio_tokens', 'cached_tokens', 'output_text_tokens', 'output_audio_tokens', 'total_cost'] as const) expect(cost[k]).toBe(0);
    const usage = z.parse(S.SessionUsageRecord, { session_id: 's' });
    for (const k of ['turn_count', 'duration_ms', 'input_tokens', 'output_tokens', 'total_tokens', 'input_text_tokens', 'input_audio_tokens', 'cached_tokens', 'output_text_tokens', 'output_audio_tokens'] as const) expect(usage[k]).toBe(0);
  });

  it('enumerates the link kinds and request sources of the spec', () => {
    expect(S.LinkKind.options).toEqual(['file', 'website', 'sitemap', 'gitbook', 'faq', 'api', 'integration']);
    expect(S.RequestSource.options).toEqual(['widget', 'api', 'playground', 'share']);
  });
});

describe('422 helpers', () => {
  it('maps zod issues to the exact spec shape with body/query/path locations', () => {
    const result = S.validate(S.PdfHighlightIn, { file_id: FILE, page: 'one', extra: 1 }, 'body');
    expect(result).toEqual({
      ok: false,
      detail: [
        { loc: ['body', 'text'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'page'], msg: 'Input should be a valid number', type: 'number_type' },
        { loc: ['body', 'extra'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      ],
    });
    for (const item of (result as { detail: unknown[] }).detail) ok(S.ValidationErrorItem, item);
  });

  it('reads query strings into typed values, keeping bad text for validation to report', () => {
    const q = S.queryToObject(S.IntegrationsQuery, new URLSearchParams('type=lark&type=notion&page=2&size=abc'));
    expect(q).toEqual({ type: ['lark', 'notion'], page: 2, size: 'abc' });
    const r = S.validate(S.IntegrationsQuery, q, 'query');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.detail).toEqual([{ loc: ['query', 'size'], msg: 'Input should be a valid number', type: 'number_type' }]);
    expect(S.objectToQuery({ type: ['a', 'b'], page: 1, x: undefined }).toString()).toBe('type=a&type=b&page=1');
  });

  it('fills path templates with encoded parameters', () => {
    expect(S.fillPath(S.endpoints.E16.path, { dataset_id: DS, file_id: 'a/b' })).toBe(`/v1/datasets/${DS}/files/a%2Fb/metadata`);
  });

  it('covers E1–E20 and signaling (offer RS, session resource RT) in the endpoint table', () => {
    const ids = Object.keys(S.endpoints).sort();
    expect(ids).toEqual(['RS', 'RT', ...Array.from({ length: 20 }, (_, i) => `E${i + 1}`)].sort());
  });
});
