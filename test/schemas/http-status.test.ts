import { describe, expect, it } from 'vitest';
import { statusClass } from '../../src/schemas/index.js';

describe('statusClass', () => {
  it('groups statuses as RFC 9110 does, anything out of range a server error', () => {
    expect([100, 199, 200, 204, 299, 300, 399, 400, 404, 499, 500, 503, 599].map(statusClass)).toEqual([
      'informational', 'informational', 'success', 'success', 'success', 'redirection', 'redirection',
      'client_error', 'client_error', 'client_error', 'server_error', 'server_error', 'server_error',
    ]);
    expect(statusClass(0)).toBe('server_error');
    expect(statusClass(600)).toBe('server_error');
  });
});
