import { describe, expect, it } from 'vitest';
import { API_METHODS, deriveMethods } from '../../src/api/methods.js';
import { endpoints, type Endpoint } from '../../src/schemas/index.js';

// The client's methods are a table over the endpoint table: every endpoint has one method (RT is
// the client's `trickle`, built on the transport), and each method puts its arguments in place.

describe('API_METHODS', () => {
  it('names every endpoint of the table once (RT aside; E9 also through the relay, under the robot)', () => {
    const covered = Object.values(API_METHODS).flatMap((group) => Object.values(group).map((m) => m.endpoint.id));
    expect(covered.sort()).toEqual([...Object.keys(endpoints).filter((id) => id !== 'RT'), 'E9'].sort());
    expect(API_METHODS.pdf.highlightCited.endpoint.path).toBe('/v1/robots/{ai_id}/pdf/highlight');
  });

  it('derives methods that pass path parameters, query, body and signal by position', async () => {
    const calls: [string, unknown][] = [];
    const methods = deriveMethods(async (endpoint: Endpoint, args) => {
      calls.push([endpoint.id, args]);
      return null;
    });
    const signal = new AbortController().signal;
    await methods.sessions.rate('ai', { session_id: 's', message_id: 'm', rating: 1 }, { feedback_content: 'x' }, { signal });
    await methods.datasets.addLinks('ds', { links: ['https://a.test'] }, { links_type: 'website' });
    await methods.sessions.delete('ai', 's');
    await methods.realtime.usage('ai');
    expect(calls).toEqual([
      ['E6', { params: { ai_id: 'ai' }, query: { session_id: 's', message_id: 'm', rating: 1 }, body: { feedback_content: 'x' }, signal }],
      ['E5', { params: { dataset_id: 'ds' }, body: { links: ['https://a.test'] }, query: { links_type: 'website' } }],
      ['E15', { params: { ai_id: 'ai', session_id: 's' } }],
      ['E13', { params: { ai_id: 'ai' } }],
    ]);
  });
});
