/**
 * `toHaveHeardFromStart`'s measurement: how much of the first question's beginning the service
 * missed. It compares what the caller said (the clip played into the fake microphone) with what the
 * service recorded of that utterance (its first recorded segment, E14 through the relay), both
 * decoded at 16 kHz by the page's audio decoder (any format the browser reads): the speech span of each — from its first to its last 10 ms frame within 30 dB of its
 * loudest — and the difference is what was cut. The recording keeps the end of an utterance (the
 * live audio runs on), so a shorter span is a cut start: words said before the service heard the
 * caller (no pre-connect buffer) are missing from it.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from '@playwright/test';

/** Frame of the speech envelope (ms). */
const FRAME_MS = 10;
/** A frame is speech when within this many dB of the loudest frame. */
const SPEECH_RANGE_DB = 30;

/** Speech span of mono PCM16 at `rate`: first and last speech frame (ms), null for silence. */
export function speechSpan(samples: Int16Array, rate: number): { startMs: number; endMs: number } | null {
  const size = Math.max(1, Math.round((rate * FRAME_MS) / 1000));
  const levels: number[] = [];
  for (let at = 0; at + size <= samples.length; at += size) {
    let sum = 0;
    for (let i = at; i < at + size; i++) sum += samples[i]! * samples[i]!;
    levels.push(10 * Math.log10(sum / size + 1e-9));
  }
  const loudest = Math.max(...levels);
  // Digital silence (or near it) holds no speech.
  if (levels.length === 0 || loudest < 10 * Math.log10(32768 * 32768) - 70) return null;
  const first = levels.findIndex((l) => l >= loudest - SPEECH_RANGE_DB);
  let last = levels.length - 1;
  while (levels[last]! < loudest - SPEECH_RANGE_DB) last--;
  return { startMs: first * FRAME_MS, endMs: (last + 1) * FRAME_MS };
}

/**
 * `sayAtStart`'s audio from its speech onset (the first speech frame of {@link speechSpan}): the
 * caller is speaking at the click. A synthesized or recorded clip opens with silence (Flite's
 * lead-in is ~150 ms); played as it is, a call that connects within it (wifi: ~350 ms) would cut
 * nothing even without the pre-connect buffer, and the measure would flatter the slow start.
 */
export function fromOnset(samples: Int16Array, rate: number): Int16Array {
  const span = speechSpan(samples, rate);
  return span ? samples.subarray(Math.round((span.startMs * rate) / 1000)) : samples;
}

/** An audio file as mono PCM16 at 16 kHz, decoded by the page's audio decoder (in-page.ts `decode16k`). */
export async function decodeInPage(page: Page, file: Uint8Array): Promise<Int16Array> {
  const pcm = await page.evaluate(
    (f) => (globalThis as unknown as { __KB_VOICE_QA__: { decode16k(file: string): Promise<string> } }).__KB_VOICE_QA__.decode16k(f),
    Buffer.from(file).toString('base64'),
  );
  const bytes = Buffer.from(pcm, 'base64');
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** How much of the said speech's start is missing from the recording (ms, >= 0), from their spans. */
export function missedStartMs(said: Int16Array, saidRate: number, heard: Int16Array, heardRate: number): { missedMs: number; saidMs: number; heardMs: number } {
  const a = speechSpan(said, saidRate);
  const b = speechSpan(heard, heardRate);
  const saidMs = a ? a.endMs - a.startMs : 0;
  const heardMs = b ? b.endMs - b.startMs : 0;
  return { missedMs: Math.max(0, saidMs - heardMs), saidMs, heardMs };
}

/**
 * The service's recording of the session's first utterance: E14 through the relay (admin), its
 * first segment once there is one (a voice turn's question is recorded as it is answered), polled
 * until `deadline` (ms since the epoch). Null when none came in time.
 */
export async function firstRecording(relayUrl: string, aiId: string, sessionId: string, deadline: number): Promise<Uint8Array | null> {
  const list = `${relayUrl.replace(/\/+$/, '')}/v1/robots/${encodeURIComponent(aiId)}/realtime-audio/download?session_id=${encodeURIComponent(sessionId)}&segment_index=0`;
  const get = (url: string) =>
    fetch(url).catch((cause: unknown) => {
      // Refused: the relay is gone, usually because the test already ended (its timeout) and the
      // worker closed the service while this still waited for the recording.
      throw new Error(`kb-voice-qa: could not read the recording at ${url} (the service closed? the test may have run out of time)`, { cause });
    });
  for (;;) {
    const answer = await get(list);
    if (answer.ok) {
      const { segments } = (await answer.json()) as { segments: { url: string }[] };
      const url = segments[0]?.url;
      if (url) {
        const wav = await get(url);
        if (wav.ok) return new Uint8Array(await wav.arrayBuffer());
        // Listed a moment before its file is written: 404 means "not yet", polled as the list is.
        if (wav.status !== 404) throw new Error(`kb-voice-qa: the recording's URL answered ${wav.status}`);
      }
    } else if (answer.status !== 404) {
      throw new Error(`kb-voice-qa: E14 answered ${answer.status}: ${await answer.text()}`);
    }
    if (Date.now() >= deadline) return null;
    // The question is recorded when its turn starts: wait for it without a busy loop.
    await sleep(200);
  }
}
