import { expect, type Page } from '@playwright/test';

/** Small page-object helpers over the QA page's stable test ids (CONTRACT.md "Demo page"). */
export const byTestId = (page: Page, id: string) => page.getByTestId(id);

export async function startCall(page: Page): Promise<void> {
  await expect(page.getByTestId('call-status')).toHaveText('idle');
  await page.getByTestId('call-start').click();
  await expect(page.getByTestId('call-status')).toHaveText('connected', { timeout: 20_000 });
}

export async function endCall(page: Page): Promise<void> {
  await page.getByTestId('call-end').click();
  await expect(page.getByTestId('call-status')).toHaveText('ended', { timeout: 20_000 });
}

/** Types a question, sends it and waits for its finished text turn. */
export async function askByText(page: Page, text: string): Promise<void> {
  const before = await page.locator('[data-testid="turn"][data-input="text"]').count();
  await page.getByTestId('text-input').fill(text);
  await page.getByTestId('text-send').click();
  await expect(page.locator('[data-testid="turn"][data-input="text"]')).toHaveCount(before + 1, { timeout: 30_000 });
}

/** Texts of the timeline entries (for checking what happened, in order). */
export async function timelineTexts(page: Page): Promise<string[]> {
  return page.getByTestId('timeline-entry').allInnerTexts();
}

/**
 * Keeps the page's VoiceSessions (every session registers itself with `__KB_VOICE_HOOK__` when the
 * page defines one) for {@link noTurnInProgress}. Call before the page loads.
 */
export async function captureSessions(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const sessions: unknown[] = [];
    const microphones: MediaStream[] = [];
    (globalThis as { __KB_VOICE_HOOK__?: unknown }).__KB_VOICE_HOOK__ = { sessions, microphones, register: (s: unknown) => sessions.push(s) };
    // The device streams too, for microphoneSpokeAgain (the test watches the fake device itself).
    const devices = navigator.mediaDevices;
    if (!devices?.getUserMedia) return;
    const open = devices.getUserMedia.bind(devices);
    devices.getUserMedia = async (constraints) => {
      const stream = await open(constraints);
      microphones.push(stream);
      return stream;
    };
  });
}

/**
 * The barrier of a "nothing reached the service while muted" check: resolves once the fake
 * microphone device (Chromium loops its WAV) has spoken again and gone quiet — heard on a clone of
 * the newest device track, which stays enabled while the session's own track is muted. A live
 * microphone would have started a turn by then. Needs {@link captureSessions}.
 */
export async function microphoneSpokeAgain(page: Page, timeoutMs = 30_000): Promise<void> {
  const outcome = await page.evaluate(async (timeout) => {
    const hook = (globalThis as { __KB_VOICE_HOOK__?: { microphones: MediaStream[] } }).__KB_VOICE_HOOK__;
    const track = hook?.microphones.at(-1)?.getAudioTracks()[0];
    if (!track) return 'no microphone captured (captureSessions before the page loads)';
    const clone = track.clone();
    clone.enabled = true;
    const context = new AudioContext();
    await context.resume();
    const analyser = context.createAnalyser();
    context.createMediaStreamSource(new MediaStream([clone])).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    const started = performance.now();
    let spokeAt = -1;
    let quietSince = -1;
    try {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        analyser.getFloatTimeDomainData(samples);
        const peak = samples.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
        const now = performance.now();
        if (peak > 0.05) {
          spokeAt = now;
          quietSince = -1;
        } else if (spokeAt >= 0 && quietSince < 0) quietSince = now;
        // Spoken, then quiet for 400 ms: the question is over.
        if (spokeAt >= 0 && quietSince >= 0 && now - quietSince >= 400) return 'spoke';
        if (now - started > timeout) return spokeAt >= 0 ? 'spoke but never went quiet' : 'the microphone never spoke';
      }
    } finally {
      clone.stop();
      void context.close();
    }
  }, timeoutMs);
  expect(outcome).toBe('spoke');
}

/**
 * The barrier after a mute: resolves once the newest session has no turn in progress — nobody
 * speaking and no live transcript — so counts taken next cannot be changed by a turn that was
 * already under way, however slow the machine. Needs {@link captureSessions}.
 */
export async function noTurnInProgress(page: Page): Promise<void> {
  await expect
    .poll(
      () =>
        page.evaluate(() => {
          type Snap = { status: string; userSpeaking: boolean; assistantSpeaking: boolean; live: unknown };
          const hook = (globalThis as { __KB_VOICE_HOOK__?: { sessions: { getSnapshot(): Snap }[] } }).__KB_VOICE_HOOK__;
          const s = hook?.sessions.at(-1)?.getSnapshot();
          if (!s) return 'no session captured (captureSessions before the page loads)';
          return s.status === 'connected' && !s.userSpeaking && !s.assistantSpeaking && s.live === null
            ? 'idle'
            : `busy: ${JSON.stringify({ status: s.status, userSpeaking: s.userSpeaking, assistantSpeaking: s.assistantSpeaking, live: s.live })}`;
        }),
      { timeout: 30_000 },
    )
    .toBe('idle');
}
