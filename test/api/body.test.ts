import { describe, expect, it } from 'vitest';
import { BodyTooLargeError, parseBody, readBody, readText } from '../../src/api/index.js';

/** A body that sends `pieces`, then waits forever (unless `end`). */
function body(pieces: string[], end = true): Response {
  const encoder = new TextEncoder();
  return new Response(new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      if (end) controller.close();
    },
  }));
}

describe('parseBody', () => {
  it('is the JSON value, the text itself when not JSON, undefined when empty or blank', () => {
    expect(parseBody('{"a":1}')).toEqual({ a: 1 });
    expect(parseBody('[1, 2]')).toEqual([1, 2]);
    expect(parseBody('<html>502</html>')).toBe('<html>502</html>');
    expect(parseBody('')).toBeUndefined();
    expect(parseBody(' \n')).toBeUndefined();
  });
});

describe('readText and readBody', () => {
  it('read the whole body, a character split across pieces kept whole', async () => {
    const bytes = Buffer.from('{"a":"日本"}', 'utf8');
    const split = new Response(new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 8));
        controller.enqueue(bytes.subarray(8));
        controller.close();
      },
    }));
    expect(await readBody(split)).toEqual({ a: '日本' });
  });

  it('stop at maxBytes with BodyTooLargeError', async () => {
    await expect(readText(body(['12345', '67890']), { maxBytes: 8 })).rejects.toBeInstanceOf(BodyTooLargeError);
    await expect(readText(body(['12345', '678']), { maxBytes: 8 })).resolves.toBe('12345678');
  });

  it('reject with the signal\'s reason when it aborts mid-body, though the body never ends', async () => {
    const controller = new AbortController();
    const reading = readText(body(['{"a":'], false), { signal: controller.signal });
    const reason = new Error('deadline');
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
  });

  it('reject at once for a signal already aborted', async () => {
    await expect(readText(body(['x']), { signal: AbortSignal.abort(new Error('gone')) })).rejects.toThrow('gone');
  });
});
