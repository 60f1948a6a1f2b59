import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { firstRecording, fromOnset, speechSpan } from '../../qa/src/first-words.js';

const RATE = 16000;
/** `leadMs` of silence, then `speechMs` of a 300 Hz tone at half scale. */
function clip(leadMs: number, speechMs: number): Int16Array {
  const lead = (RATE * leadMs) / 1000;
  const out = new Int16Array(lead + (RATE * speechMs) / 1000);
  for (let i = lead; i < out.length; i++) out[i] = Math.round(16000 * Math.sin((2 * Math.PI * 300 * i) / RATE));
  return out;
}

describe('sayAtStart from the onset (issue 48: without the buffer, even a fast connect cuts the question)', () => {
  it('cuts the silent lead-in, so the speech starts with the clip', () => {
    const trimmed = fromOnset(clip(400, 1000), RATE);
    expect(speechSpan(trimmed, RATE)!.startMs).toBe(0);
    expect(trimmed.length).toBe(RATE); // the 1000 ms of speech, none of it lost
  });

  it('leaves a clip that starts with speech, or holds none, as it is', () => {
    const speech = clip(0, 500);
    expect(fromOnset(speech, RATE)).toEqual(speech);
    const silence = new Int16Array(RATE);
    expect(fromOnset(silence, RATE)).toBe(silence);
  });
});

describe('firstRecording', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('takes a listed segment whose file answers 404 for "not yet" and polls until it is there', async () => {
    let fileAsks = 0;
    server = createServer((req, res) => {
      if (req.url!.startsWith('/file')) {
        fileAsks++;
        // The list names the segment a moment before its file is written (seen in the lab on wifi).
        if (fileAsks < 3) return void res.writeHead(404).end();
        return void res.writeHead(200, { 'content-type': 'audio/wav' }).end(Buffer.from([1, 2, 3]));
      }
      const { port } = server!.address() as { port: number };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ segments: [{ url: `http://127.0.0.1:${port}/file` }] }));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const wav = await firstRecording(`http://127.0.0.1:${port}/api`, 'robot', 's1', Date.now() + 60_000);
    expect([...wav!]).toEqual([1, 2, 3]);
    expect(fileAsks).toBe(3);
  });

  it('a service that is gone says so, naming the URL (not a bare "fetch failed")', async () => {
    server = createServer();
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    await expect(firstRecording(`http://127.0.0.1:${port}/api`, 'robot', 's1', Date.now() + 60_000)).rejects.toThrow(/could not read the recording at http:\/\/127\.0\.0\.1:\d+\/api\/v1\/robots\/robot/);
  });
});
