import { describe, expect, it } from 'vitest';
import { openaiCodec } from '../../src/client/openai/codec.js';
import { VoiceSessionError } from '../../src/client/errors.js';
import { MAX_REPORTED_UNKNOWN_TYPES } from '../../src/client/protocol.js';

// A far side sending garbage in a loop must not flood the app with `error` events: the OpenAI
// dialect reports malformed messages as the v1 codec does, once per distinct error, at most
// MAX_REPORTED_UNKNOWN_TYPES kinds, every one counted.
describe('openaiCodec: malformed messages are reported once per kind, a bounded number of kinds', () => {
  const errorsOf = (results: unknown[]) => results.filter((r) => r instanceof VoiceSessionError) as VoiceSessionError[];

  it('reports the same malformed message once, and counts the rest', () => {
    const codec = openaiCodec(() => 0);
    const results = Array.from({ length: 50 }, () => codec.decode('not json'));
    expect(errorsOf(results)).toHaveLength(1);
    expect(errorsOf(results)[0]!.code).toBe('protocol_error');
    expect(codec.malformed.get('Data-channel message is not JSON')).toBe(50);
  });

  it('reports at most MAX_REPORTED_UNKNOWN_TYPES distinct malformed messages, then only counts', () => {
    const codec = openaiCodec(() => 0);
    // Distinct schema errors: each message fails on another field's type.
    const results: unknown[] = [];
    for (let i = 0; i < 200; i++) {
      results.push(codec.decode(JSON.stringify({ type: 'response.output_audio_transcript.delta', [`f${i}`]: 1, delta: i, response_id: 5 })));
      results.push(codec.decode(`{"broken": ${i}`));
    }
    expect(errorsOf(results).length).toBeLessThanOrEqual(MAX_REPORTED_UNKNOWN_TYPES);
    expect([...codec.malformed.values()].reduce((a, b) => a + b, 0)).toBe(400);
  });

  it('still decodes good messages after a flood', () => {
    const codec = openaiCodec(() => 0);
    for (let i = 0; i < 100; i++) codec.decode(`{"x":${i}`);
    const out = codec.decode(JSON.stringify({ type: 'session.created', session: { id: 's1' } }));
    expect(Array.isArray(out) && out[0]).toMatchObject({ type: 'session.ready', session_id: 's1' });
  });
});
