import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/api/errors.js';
import { ApiError } from '../../../src/api/index.js';
import { VoiceSession, type VoiceSessionApi } from '../../../src/client/index.js';
import { MAX_FEEDBACK_CHARS, withSources } from '../../../src/sources/index.js';
import { FakeClock, ScriptedService } from '../../../src/testing/index.js';

async function call(api?: (api: VoiceSessionApi) => VoiceSessionApi) {
  const clock = new FakeClock();
  const service = new ScriptedService({ clock, sessionId: 'session-1' });
  const base = service.sessionOptions;
  const session = new VoiceSession({ aiId: 'robot-1', ...base, api: api ? api(base.api) : base.api, sources: withSources() });
  await session.start();
  return { clock, service, session };
}

describe('session.rate(turnId, { rating, feedback })', () => {
  it('sends E6 with source=widget for the turn\'s message, and works after the call ended', async () => {
    const { service, session } = await call();
    service.turn('How long is the warranty?', 'Two years.');
    await session.end();
    await session.rate(1, { rating: -1, feedback: 'Too short' });
    expect(service.api.ratings).toEqual([{ query: { session_id: 'session-1', message_id: 'scripted-message-1', rating: -1, source: 'widget' }, body: { feedback_content: 'Too short' } }]);
    expect(service.api.messages.get('scripted-message-1')).toMatchObject({ rating: -1, feedback_content: 'Too short' });
    await session.rate(1, { rating: 0 });
    expect(service.api.ratings[1]).toEqual({ query: { session_id: 'session-1', message_id: 'scripted-message-1', rating: 0, source: 'widget' }, body: undefined });
  });

  it('the last call wins: calls for one message are sent one after the other', async () => {
    const order: string[] = [];
    const releases: Array<() => void> = [];
    const { clock, service, session } = await call((api) => ({
      realtime: api.realtime,
      sessions: {
        ...api.sessions!,
        rate: (ai, query, body) => {
          order.push(`start ${query.rating}`);
          return new Promise((resolve) => releases.push(() => (order.push(`stored ${query.rating}`), resolve(api.sessions!.rate!(ai, query, body)))));
        },
      },
    }));
    service.turn('q', 'a');
    const first = session.rate(1, { rating: 1 });
    const second = session.rate(1, { rating: -1, feedback: 'wrong' });
    await clock.settle();
    expect(order).toEqual(['start 1']); // the second waits for the first
    releases[0]!();
    await first;
    await clock.settle();
    expect(order).toEqual(['start 1', 'stored 1', 'start -1']);
    releases[1]!();
    await second;
    expect(service.api.messages.get('scripted-message-1')).toMatchObject({ rating: -1, feedback_content: 'wrong' });
    await session.end();
  });

  it('a failed earlier call does not stop the later one, and its error is typed with the cause', async () => {
    let n = 0;
    const cause = new ApiError('http_error', 'boom', { status: 500, body: { detail: 'boom' } });
    const { service, session } = await call((api) => ({
      realtime: api.realtime,
      sessions: { ...api.sessions!, rate: async (ai, q, b) => (++n === 1 ? Promise.reject(cause) : api.sessions!.rate!(ai, q, b)) },
    }));
    service.turn('q', 'a');
    const first = session.rate(1, { rating: 1 });
    const second = session.rate(1, { rating: -1 });
    await expect(first).rejects.toMatchObject({ code: 'rating_failed', status: 500, cause });
    await second;
    expect(service.api.messages.get('scripted-message-1')!.rating).toBe(-1);
    await session.end();
  });

  it('typed errors: unknown turn, no message id, bad rating, feedback over the limit (before any request)', async () => {
    const { service, session } = await call();
    await expect(session.rate(1, { rating: 1 })).rejects.toMatchObject({ code: 'unknown_turn' });
    service.turn('q', 'a');
    await expect(session.rate(1, { rating: 2 as 1 })).rejects.toBeInstanceOf(ValidationError);
    await expect(session.rate(1, { rating: 1, feedback: 'x'.repeat(MAX_FEEDBACK_CHARS + 1) })).rejects.toMatchObject({ code: 'validation_error', detail: [{ loc: ['rating', 'feedback'] }] });
    await session.rate(1, { rating: 1, feedback: 'x'.repeat(MAX_FEEDBACK_CHARS) });
    expect(service.api.ratings).toHaveLength(1);
    // A turn the service recorded no message for (empty message_id).
    service.userSays('again');
    service.send({ v: 1, type: 'turn.completed', turn_id: 2, message_id: '', input: 'voice', question: 'again', answer: 'x', first_response_ms: null, agent_build_ms: 0, input_duration_ms: 1, output_duration_ms: 0, interrupted: false });
    await expect(session.rate(2, { rating: 1 })).rejects.toMatchObject({ code: 'no_message' });
    await session.end();
  });
});
