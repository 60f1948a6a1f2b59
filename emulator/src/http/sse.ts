/**
 * A Server-Sent Events response: one `data: <json>` event per payload, a short pause between them
 * (so clients really receive a stream), then `data: [DONE]`.
 */
export function sseResponse(payloads: unknown[], pauseMs = 10): Response {
  const encoder = new TextEncoder();
  const events = [...payloads.map((p) => `data: ${JSON.stringify(p)}\n\n`), 'data: [DONE]\n\n'];
  let i = 0;
  let timer: NodeJS.Timeout | undefined;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      return new Promise<void>((resolve) => {
        timer = setTimeout(
          () => {
            controller.enqueue(encoder.encode(events[i++]!));
            if (i >= events.length) controller.close();
            resolve();
          },
          i === 0 ? 0 : pauseMs,
        );
      });
    },
    cancel() {
      clearTimeout(timer);
    },
  });
  return new Response(stream, {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' },
  });
}
