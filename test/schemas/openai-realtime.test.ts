import type { RealtimeClientEvent, RealtimeServerEvent } from 'openai/resources/realtime/realtime';
import type { ClientSecretCreateParams, ClientSecretCreateResponse } from 'openai/resources/realtime/client-secrets';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import {
  OaiClientEvent,
  OaiClientSecretIn,
  OaiServerEvent,
  type OaiClientSecretOut,
  type OaiServerEventType,
} from '../../src/schemas/openai-realtime.js';

/**
 * The OpenAI dialect's shapes against the `openai` package's own types (the reference): every event
 * the emulator may send must be a `RealtimeServerEvent`, every client event and client-secret
 * request the official SDKs send must parse. `npm run typecheck` fails when a shape drifts.
 */

// Each outgoing event, one by one, is assignable to the official union member of the same type.
type EachAssignable = {
  [K in OaiServerEventType]: Extract<OaiServerEvent, { type: K }> extends Extract<RealtimeServerEvent, { type: K }> ? true : K;
};
type Mismatched = Exclude<EachAssignable[OaiServerEventType], true>;
const everyEventAssignable: [Mismatched] extends [never] ? true : Mismatched = true;
// And the client secret answer is the official one.
const secretAssignable: [OaiClientSecretOut] extends [ClientSecretCreateResponse] ? true : false = true;

describe('OpenAI realtime schemas', () => {
  it('type-check against the openai package', () => {
    expect(everyEventAssignable).toBe(true);
    expect(secretAssignable).toBe(true);
    expectTypeOf<OaiServerEvent>().toExtend<RealtimeServerEvent>();
  });

  it('accept what the official clients send', () => {
    const samples: RealtimeClientEvent[] = [
      {
        type: 'session.update',
        session: {
          type: 'realtime',
          model: 'robot',
          output_modalities: ['audio'],
          audio: {
            input: { format: { type: 'audio/pcm', rate: 24000 }, transcription: { model: 'gpt-4o-mini-transcribe' }, turn_detection: { type: 'semantic_vad' } },
            output: { format: { type: 'audio/pcm', rate: 24000 }, speed: 1 },
          },
        },
      },
      { type: 'session.update', session: { type: 'realtime', tracing: 'auto' } },
      { type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] } },
      { type: 'response.create' },
      { type: 'response.cancel' },
      { type: 'output_audio_buffer.clear' },
      { type: 'input_audio_buffer.commit' },
      { type: 'input_audio_buffer.clear' },
      { type: 'conversation.item.retrieve', item_id: 'item_1' },
      { type: 'conversation.item.delete', item_id: 'item_1' },
      { type: 'conversation.item.truncate', item_id: 'item_1', content_index: 0, audio_end_ms: 100 },
    ];
    for (const sample of samples) expect(z.safeParse(OaiClientEvent, sample).success, sample.type).toBe(true);
    const secret: ClientSecretCreateParams = { expires_after: { anchor: 'created_at', seconds: 60 }, session: { type: 'realtime', model: 'robot' } };
    expect(z.safeParse(OaiClientSecretIn, secret).success).toBe(true);
  });

  it('reject malformed events', () => {
    expect(z.safeParse(OaiClientEvent, { type: 'conversation.item.retrieve' }).success).toBe(false);
    expect(z.safeParse(OaiClientEvent, { type: 'nonsense' }).success).toBe(false);
    expect(z.safeParse(OaiServerEvent, { type: 'response.done', event_id: 'e', response: {} }).success).toBe(false);
  });
});
