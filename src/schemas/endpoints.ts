import * as z from 'zod/mini';
import { orAcknowledgement, Uuid } from './common.js';
import * as chat from './chat.js';
import * as datasets from './datasets.js';
import * as documents from './documents.js';
import * as openai from './openai-realtime.js';
import * as prompts from './prompts.js';
import * as realtime from './realtime.js';
import { SDPFRAG_CONTENT_TYPE, SDPFRAG_LIMITS } from './sdpfrag.js';
import * as sessions from './sessions.js';

/**
 * The table of every endpoint: E1–E20 plus realtime signaling (`RS`, and `RT`: PATCH of the session
 * resource its 201 names in `Location`). The API client, the emulator
 * (routing, validation, OpenAPI) and the relay (allowlist) are all driven by it.
 */
export interface Endpoint {
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path template with `{name}` parameters. */
  readonly path: string;
  readonly params: z.ZodMiniObject;
  readonly query?: z.ZodMiniObject;
  readonly body?: z.core.$ZodType;
  /** False when the body may be omitted entirely (E1, E6). */
  readonly bodyRequired?: boolean;
  /** Response body on success; undefined for a body the client does not parse (E14 is JSON, so set). */
  readonly response: z.core.$ZodType;
  readonly status: number;
  /** Whether the bearer credential is listed by the spec. */
  readonly auth: boolean;
  /** The endpoint may answer 204 with no body (E15: an ignored deletion); any other endpoint with a response needs its body. */
  readonly empty?: boolean;
  /** E3 and E10 can answer with Server-Sent Events when `stream: true`. */
  readonly streams?: boolean;
  /** Media type of a body that is not JSON (RT: `application/trickle-ice-sdpfrag`); its schema is a string. */
  readonly contentType?: string;
  /**
   * The upstream endpoint a relay route is mapped to when its path differs (the relay's OpenAI-dialect
   * routes name the robot in the path; the service's do not). Absent: the same path upstream.
   */
  readonly upstream?: Endpoint;
}

/**
 * A path parameter: not empty, and not `.` or `..`, which URL parsing (fetch's, a proxy's) would
 * resolve as a path step (`/v1/{ai_id}/sessions/..` is `/v1/{ai_id}/`), reaching another resource.
 * Every other character is sent percent-encoded (`fillPath`).
 */
const notDotSegment = z.refine<string>((value) => value !== '.' && value !== '..', { message: 'Input should not be "." or ".." (a path step, not an id)' });
const id = z.string().check(z.minLength(1), notDotSegment);
const aiId = z.strictObject({ ai_id: id });
const aiUuid = z.strictObject({ ai_id: Uuid });
const none = z.strictObject({});
/** A text body or answer (SDP), made once: a call inside a table entry would keep the entry in every bundle. */
const text = z.string();

// E4–E8: the spec shows no success body; the project's shape, or an acknowledgement (`{ success: true }`).
const E4Out = orAcknowledgement(datasets.RefreshFilesOut);
const E5Out = orAcknowledgement(datasets.AddLinksOut);
const E6Out = orAcknowledgement(sessions.MessageRatingOut);
const E7Out = orAcknowledgement(datasets.DeleteFilesOut);
const E8Out = orAcknowledgement(datasets.DatasetConfigsOut);

const define = <const T extends Record<string, Endpoint>>(t: T) => t;

export const endpoints = define({
  E1: { id: 'E1', method: 'POST', path: '/v1/robots/{ai_id}/realtime/warmup', params: aiUuid, body: realtime.RealtimeWarmupIn, bodyRequired: false, response: realtime.RealtimeWarmupOut, status: 200, auth: true },
  RS: { id: 'RS', method: 'POST', path: '/v1/robots/{ai_id}/realtime/sessions', params: aiId, body: realtime.RealtimeSessionIn, response: realtime.RealtimeSessionOut, status: 201, auth: true },
  RT: { id: 'RT', method: 'PATCH', path: '/v1/robots/{ai_id}/realtime/sessions/{session_id}', params: z.strictObject({ ai_id: id, session_id: id }), body: z.string().check(z.minLength(1), z.maxLength(SDPFRAG_LIMITS.maxChars)), contentType: SDPFRAG_CONTENT_TYPE, response: z.string(), status: 204, auth: true },
  E2: { id: 'E2', method: 'PUT', path: '/v1/ais/{ai_id}/gen_prompt', params: aiId, body: prompts.GenPromptIn, response: prompts.GenPromptOut, status: 200, auth: true },
  E3: { id: 'E3', method: 'POST', path: '/v1/ais/gen_prompt', params: none, body: prompts.GenPromptIn, response: prompts.GenPromptOut, status: 200, auth: true, streams: true },
  E4: { id: 'E4', method: 'PUT', path: '/v1/datasets/{dataset_id}/files/refresh_list', params: z.strictObject({ dataset_id: id }), body: datasets.RefreshFilesIn, response: E4Out, status: 200, auth: true },
  E5: { id: 'E5', method: 'POST', path: '/v1/datasets/{dataset_id}/links', params: z.strictObject({ dataset_id: id }), query: datasets.AddLinksQuery, body: datasets.AddLinksIn, response: E5Out, status: 200, auth: true },
  E6: { id: 'E6', method: 'PATCH', path: '/v1/{ai_id}/message_rating', params: aiId, query: sessions.MessageRatingQuery, body: sessions.MessageRatingIn, bodyRequired: false, response: E6Out, status: 200, auth: true },
  E7: { id: 'E7', method: 'DELETE', path: '/v1/datasets/{dataset_id}/files', params: z.strictObject({ dataset_id: id }), body: datasets.DeleteFilesIn, response: E7Out, status: 200, auth: true },
  E8: { id: 'E8', method: 'POST', path: '/v1/datasets/{dataset_id}/configs', params: z.strictObject({ dataset_id: id }), body: datasets.DatasetConfigsIn, response: E8Out, status: 200, auth: true },
  E9: { id: 'E9', method: 'POST', path: '/pdf/highlight', params: none, body: documents.PdfHighlightIn, response: documents.PdfHighlightOut, status: 200, auth: false },
  E10: { id: 'E10', method: 'POST', path: '/v1/digitals/v1/chat/completions', params: none, body: chat.ChatCompletionIn, response: chat.ChatCompletionOut, status: 200, auth: false, streams: true },
  E11: { id: 'E11', method: 'GET', path: '/v1/robots/{ai_id}/realtime-cost', params: aiId, query: realtime.RealtimeCostQuery, response: realtime.RealtimeCostSummary, status: 200, auth: true },
  E12: { id: 'E12', method: 'GET', path: '/v1/robots/{ai_id}/realtime-cost/sessions', params: aiId, query: realtime.RealtimeCostQuery, response: realtime.RealtimeSessionCostList, status: 200, auth: true },
  E13: { id: 'E13', method: 'GET', path: '/v1/robots/{ai_id}/realtime-usage', params: aiId, query: realtime.RealtimeUsageQuery, response: realtime.RealtimeUsage, status: 200, auth: true },
  E14: { id: 'E14', method: 'GET', path: '/v1/robots/{ai_id}/realtime-audio/download', params: aiId, query: realtime.RealtimeAudioQuery, response: realtime.RealtimeAudioOut, status: 200, auth: true },
  E15: { id: 'E15', method: 'DELETE', path: '/v1/{ai_id}/sessions/{session_id}', params: z.strictObject({ ai_id: id, session_id: z.string().check(notDotSegment) }), response: sessions.SessionDeleteOut, status: 200, auth: true, empty: true },
  E16: { id: 'E16', method: 'GET', path: '/v1/datasets/{dataset_id}/files/{file_id}/metadata', params: z.strictObject({ dataset_id: id, file_id: id }), response: datasets.DatasetFile, status: 200, auth: true },
  E17: { id: 'E17', method: 'GET', path: '/v1/{ai_id}/session.messages/{message_id}', params: z.strictObject({ ai_id: id, message_id: id }), response: sessions.SessionMessage, status: 200, auth: true },
  E18: { id: 'E18', method: 'GET', path: '/v1/question/references/{ai_id}', params: aiId, query: sessions.ReferencesQuery, response: sessions.ReferencesOut, status: 200, auth: true },
  E19: { id: 'E19', method: 'GET', path: '/v1/{ai_id}/session.messages', params: aiId, query: sessions.SessionMessagesQuery, response: sessions.SessionMessagePage, status: 200, auth: false },
  E20: { id: 'E20', method: 'GET', path: '/v1/datasets/{dataset_id}/integrations', params: z.strictObject({ dataset_id: Uuid }), query: datasets.IntegrationsQuery, response: datasets.IntegrationPage, status: 200, auth: true },
});

export type EndpointId = keyof typeof endpoints;

/**
 * The OpenAI-compatible realtime endpoints of the service (CONTRACT.md, "OpenAI-compatible realtime"):
 * bodies as OpenAI's, errors in OpenAI's `{ error }` shape. `OAI_CALLS` takes `application/sdp`, or
 * multipart with `sdp` and `session` parts (`readOfferForm`); its 201 names the call in `Location`.
 */
// Plain literals and identifiers (no call), so bundlers drop these tables
// from apps that never use them (the OpenAI dialect ships only when imported).
const OAI_CLIENT_SECRETS = { id: 'OAI_CLIENT_SECRETS', method: 'POST', path: '/v1/realtime/client_secrets', params: none, body: openai.OaiClientSecretIn, response: openai.OaiClientSecretOut, status: 200, auth: true } as const satisfies Endpoint;
// The offer's non-emptiness is checked by its readers (the relay's text body, `readOfferBody`).
const OAI_CALLS = { id: 'OAI_CALLS', method: 'POST', path: '/v1/realtime/calls', params: none, contentType: 'application/sdp', body: text, response: text, status: 201, auth: true } as const satisfies Endpoint;
export const openaiEndpoints = { OAI_CLIENT_SECRETS, OAI_CALLS } as const;

const robot = z.strictObject({ ai_id: id });

/**
 * The relay's two OpenAI-dialect routes (CONTRACT.md, "Relay"): the robot in the path, mapped to the
 * service's `openaiEndpoints` with `session.model` set to it.
 */
export const openaiRelayEndpoints = {
  OAI_SECRET: {
    id: 'OAI_SECRET', method: 'POST', path: '/v1/robots/{ai_id}/realtime/client_secrets',
    params: robot, body: openai.OaiRelaySecretIn, bodyRequired: false, response: openai.OaiClientSecretOut, status: 200, auth: true, upstream: OAI_CLIENT_SECRETS,
  },
  OAI_CALL: {
    id: 'OAI_CALL', method: 'POST', path: '/v1/robots/{ai_id}/realtime/calls',
    params: robot, response: text, status: 201, auth: true, upstream: OAI_CALLS,
  },
} as const satisfies Record<string, Endpoint>;

/**
 * The relay's route to E9 (CONTRACT.md, "Sources and ratings"): the robot in the path (the relay
 * scopes every route to a robot) and the message citing the file in the query; the relay forwards
 * it to the service's E9 with the body only (its route table sets `upstream`, so this table stays
 * free of reads of `endpoints` and bundlers drop it from apps that do not use it).
 */
export const sourcesRelayEndpoints = {
  E9: {
    id: 'E9', method: 'POST', path: '/v1/robots/{ai_id}/pdf/highlight',
    params: robot, query: documents.PdfHighlightRelayQuery, body: documents.PdfHighlightIn, response: documents.PdfHighlightOut, status: 200, auth: true,
  },
} as const satisfies Record<string, Endpoint>;

/** Templates split once (`['/v1/robots/', 'ai_id', '/realtime-usage']`); the table's few, so the cache stops at 64. */
const splitTemplates = new Map<string, string[]>();

/** Fills a path template: `{name}` becomes the URI-encoded parameter. */
export function fillPath(template: string, params: Record<string, string>): string {
  let parts = splitTemplates.get(template);
  if (!parts) {
    parts = template.split(/\{(\w+)\}/);
    if (splitTemplates.size < 64) splitTemplates.set(template, parts);
  }
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) out += encodeURIComponent(params[parts[i]!] ?? '') + parts[i + 1]!;
  return out;
}
