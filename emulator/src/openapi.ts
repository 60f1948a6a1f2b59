import * as z from 'zod/mini';
import { endpoints, endpointSummaries, ErrorDetail, HTTPValidationError, OaiClientSecretIn, OaiClientSecretOut, OaiHttpError, OaiSessionConfigIn, type Endpoint } from 'kb-voice/schemas';

type JsonSchema = Record<string, unknown>;

const request = (schema: z.core.$ZodType): JsonSchema => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
const response = (schema: z.core.$ZodType): JsonSchema => z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema;

/** OpenAPI parameters of an object schema's members. */
function parameters(schema: z.ZodMiniObject | undefined, where: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const json = request(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => {
    const array = s.type === 'array';
    return {
      name,
      in: where,
      required: where === 'path' || (json.required ?? []).includes(name),
      schema: s,
      ...(array ? { style: 'form', explode: true } : {}),
    };
  });
}

function operation(e: Endpoint): JsonSchema {
  const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
  const responses: Record<string, JsonSchema> = {
    [String(e.status)]: {
      description: 'Success',
      content: {
        ...json(response(e.response)),
        ...(e.streams ? { 'text/event-stream': { schema: { type: 'string', description: 'With stream: true, `data: <json>` events then `data: [DONE]`' } } } : {}),
      },
    },
    '422': { description: 'Validation error', content: json(response(HTTPValidationError)) },
    '404': { description: 'Unknown robot, dataset, file, session or message', content: json(response(ErrorDetail)) },
  };
  if (e.id === 'E15') responses['204'] = { description: 'Ignored: empty session id, or a session of another robot' };
  if (e.contentType) {
    // RT: 204 for candidates, 200 with the answer fragment for an ICE restart; 415 for another body type.
    responses['204'] = { description: 'Candidates or end-of-candidates applied' };
    responses['200'] = { description: 'ICE restart answered', content: { [e.contentType]: { schema: { type: 'string' } } } };
    responses['415'] = { description: `Body not ${e.contentType}`, content: json(response(ErrorDetail)) };
  }
  if (e.auth) responses['401'] = { description: 'Missing or wrong API key', content: json(response(ErrorDetail)) };
  return {
    operationId: e.id,
    summary: `${e.id}: ${endpointSummaries[e.id] ?? e.id}`,
    parameters: [...parameters(e.params, 'path'), ...parameters(e.query, 'query')],
    ...(e.body ? { requestBody: { required: e.bodyRequired !== false, content: e.contentType ? { [e.contentType]: { schema: request(e.body) } } : json(request(e.body)) } } : {}),
    responses,
    ...(e.auth ? { security: [{ bearer: [] }] } : { security: [{}, { bearer: [] }] }),
  };
}

/** The two endpoints of the OpenAI Realtime protocol (README "OpenAI-compatible realtime"). */
function openaiPaths(): Record<string, Record<string, JsonSchema>> {
  const error = (description: string) => ({ description, content: { 'application/json': { schema: response(OaiHttpError) } } });
  const sessionId = { name: 'session_id', in: 'query', required: false, schema: { type: 'string' }, description: 'Id of the session the call gets (the relay passes a granted one)' };
  const userHeader = { name: 'OpenAI-Safety-Identifier', in: 'header', required: false, schema: { type: 'string' }, description: 'The end user; becomes the session\'s user_identifier' };
  return {
    '/v1/realtime/client_secrets': {
      post: {
        operationId: 'OAI_CLIENT_SECRETS',
        summary: 'OpenAI protocol: mint an ephemeral key (ek_) for one robot (session.model) and end user',
        parameters: [sessionId, userHeader],
        requestBody: { required: true, content: { 'application/json': { schema: request(OaiClientSecretIn) } } },
        responses: { '200': { description: 'The secret', content: { 'application/json': { schema: response(OaiClientSecretOut) } } }, '400': error('Invalid body or unsupported configuration'), '401': error('Missing or wrong API key'), '404': error('Unknown robot'), '409': error('session_id in use') },
        security: [{ bearer: [] }],
      },
    },
    '/v1/realtime/calls': {
      post: {
        operationId: 'OAI_CALLS',
        summary: 'OpenAI protocol: SDP offer in, SDP answer out (bearer ek_ or the API key)',
        parameters: [sessionId, userHeader],
        requestBody: {
          required: true,
          content: {
            'application/sdp': { schema: { type: 'string' } },
            'multipart/form-data': { schema: { type: 'object', required: ['sdp'], properties: { sdp: { type: 'string' }, session: request(OaiSessionConfigIn) } } },
          },
        },
        responses: {
          '201': { description: 'The SDP answer', headers: { Location: { schema: { type: 'string' }, description: '/v1/realtime/calls/{call_id}; the call id is the session_id' } }, content: { 'application/sdp': { schema: { type: 'string' } } } },
          '400': error('Invalid offer or session'), '401': error('Missing, wrong or expired key'), '403': error('Client secret of another robot'), '404': error('Unknown robot'),
          '409': error('Call id in use'), '413': error('Body over 256 KiB'), '415': error('Neither application/sdp nor multipart/form-data'),
        },
        security: [{ bearer: [] }],
      },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the emulated service, generated from the shared endpoint table and
 * its zod schemas (JSON Schema draft 2020-12, which OpenAPI 3.1 uses), so it always matches what
 * the emulator validates.
 */
export function openApiDocument(serverUrl?: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const e of Object.values(endpoints) as Endpoint[]) {
    (paths[e.path] ??= {})[e.method.toLowerCase()] = operation(e);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Knowledge-Base Assistant Service API (kb-voice emulator)', version: '0.0.1' },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths: { ...paths, ...openaiPaths() },
  };
}
