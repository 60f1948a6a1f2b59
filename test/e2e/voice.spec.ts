import { speechSentences, synthesizeFlite, synthesizeFormant } from 'kb-voice-emulator';
import { decodeWav } from '../../emulator/src/wav.js';
import { resample } from '../../emulator/src/realtime/pcm.js';
import { trimLeadIn } from '../../emulator/src/realtime/speech.js';
import { averageSpectrum, shapeCorrelation } from '../helpers/spectrum.js';
import { expect, snap, test } from './fixtures.js';
import { byTestId, endCall, startCall } from './qa.js';

// Chromium's fake microphone loops a recorded "How long is the warranty?" (then 12 s of silence).
// QA scripts those words on the page; the emulator answers them from the knowledge base and speaks
// the answer with Flite, which this test checks against Flite's own output for the same text.
test.use({ micFile: 'e2e-question.wav', voice: 'flite' });

const QUESTION = 'How long is the warranty?';

test('a scripted spoken question gets the knowledge answer back as Flite speech', async ({ page, openDemo, emu }, testInfo) => {
  test.setTimeout(90_000);
  await openDemo('?lang=en');
  // Before the call: the next spoken question of any session.
  await byTestId(page, 'script-input').fill(QUESTION);
  await byTestId(page, 'script-set').click();
  await expect(byTestId(page, 'script-status')).toHaveAttribute('data-state', 'queued');

  await startCall(page);
  const sessionId = (await byTestId(page, 'session-id').innerText()).trim();
  // Once the answer is spoken, the microphone is muted: the file loops the question after 12 s of
  // silence, and on a busy machine the answer still plays then, so the loop cut it (a busy-core run:
  // the recorded answer 2.3 s short of Flite's).
  await expect(byTestId(page, 'speaking')).toContainText('assistant', { timeout: 40_000 });
  await byTestId(page, 'mute-toggle').click();
  const turn = page.locator('[data-testid="turn"][data-input="voice"]').first();
  await expect(turn).toBeAttached({ timeout: 40_000 });
  await expect(turn).toHaveAttribute('data-interrupted', 'false');
  await expect(turn).toHaveAttribute('data-scripted', 'true');
  await expect(turn.getByTestId('turn-question')).toHaveText(QUESTION);
  const answer = (await turn.getByTestId('turn-answer').innerText()).trim();
  expect(answer).toContain('two-year warranty');
  await expect(byTestId(page, 'script-status')).toHaveAttribute('data-state', 'used');
  // The browser heard the answer.
  expect(Number(await byTestId(page, 'output-level').getAttribute('data-peak'))).toBeGreaterThan(0.05);
  await snap(page, testInfo, 'voice-scripted-turn');
  await endCall(page);

  // The message records that the words were scripted.
  const messageId = await turn.getAttribute('data-message-id');
  const stored = await emu.get(`/v1/${emu.robotId}/session.messages/${messageId}`);
  expect(stored.status).toBe(200);
  expect(stored.body).toMatchObject({ question: QUESTION, question_metadata: { input: 'voice', scripted: true } });

  // The answer audio the emulator sent: segment 0 is the question, segment 1 the answer.
  const audio = await emu.get(`/v1/robots/${emu.robotId}/realtime-audio/download?session_id=${sessionId}`);
  expect(audio.status).toBe(200);
  const segment = audio.body.segments.find((s: { segment_index: number }) => s.segment_index === 1);
  const wav = decodeWav(new Uint8Array(await (await fetch(segment.url)).arrayBuffer()));

  // Flite's output for the same text, sentence by sentence as the emulator speaks it: the first
  // sentence without Flite's silent lead-in (trimmed so the answer is heard from its first word).
  const reference = await Promise.all(speechSentences(answer).map((s) => synthesizeFlite(s.trim())));
  reference[0] = { ...reference[0]!, samples: trimLeadIn(reference[0]!.samples, reference[0]!.sampleRate) };
  const referenceMs = reference.reduce((ms, p) => ms + (p.samples.length / p.sampleRate) * 1000, 0);
  const recordedMs = (wav.samples.length / wav.sampleRate) * 1000;
  expect(Math.abs(recordedMs - referenceMs)).toBeLessThan(40);

  const spectrum = (samples: Int16Array, rate: number) => averageSpectrum(resample(samples, rate, 48000), 48000, 32, 8000);
  const recorded = spectrum(wav.samples, wav.sampleRate);
  const flite = spectrum(concat(reference.map((p) => resample(p.samples, p.sampleRate, 48000))), 48000);
  const formant = synthesizeFormant(answer);
  expect(shapeCorrelation(recorded, flite)).toBeGreaterThan(0.98);
  expect(shapeCorrelation(recorded, spectrum(formant.samples, formant.sampleRate))).toBeLessThan(0.9);
  testInfo.annotations.push({ type: 'answer audio', description: `${Math.round(recordedMs)} ms recorded vs ${Math.round(referenceMs)} ms Flite reference` });
});

function concat(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
