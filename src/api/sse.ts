/**
 * Reads a Server-Sent Events body and yields each event's `data` (multi-line data joined by `\n`).
 * Stops at `[DONE]` (the OpenAI convention the service's streams follow) or at the end of the body.
 */
export async function* readSseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (data.length) {
            const payload = data.join('\n');
            data = [];
            if (payload === '[DONE]') return;
            yield payload;
          }
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        }
        // Comments (`:`), `event:`, `id:` and `retry:` lines carry nothing the client needs.
      }
      if (done) {
        if (data.length && data.join('\n') !== '[DONE]') yield data.join('\n');
        return;
      }
    }
  } finally {
    // Cancelling releases the connection when the consumer stops early.
    await reader.cancel().catch(() => {});
  }
}
