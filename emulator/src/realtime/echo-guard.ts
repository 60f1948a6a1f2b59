/**
 * The answer must never interrupt itself: a caller on speakers sends the answer back, delayed and
 * attenuated, through their microphone. The emulator knows what it sent (the far-end reference),
 * so it can tell, per 10 ms frame, whether what it hears is explained by its own output — what an
 * echo canceller's double-talk detector does. This one is Geigel's detector with an adaptive
 * threshold, on frame levels:
 *
 * - the reference is the RMS of each frame sent, kept for the plausible echo delay
 *   ({@link ECHO_WINDOW_MS}: network both ways, jitter buffers, the caller's audio path);
 * - a microphone frame is echo when its RMS is at most `threshold ×` the loudest reference frame in
 *   that window — the caller's own voice, near the microphone, is louder than the echo;
 * - the threshold starts at Geigel's classic 0.5 (-6 dB: echo is no louder than half the far end)
 *   and adapts to the measured echo return loss: the estimate follows the upper envelope of the
 *   level ratios of frames explained as echo (quickly up, slowly down: the quiet gaps between the
 *   answer's words say nothing about the path), and the threshold sits {@link MARGIN_DB} above it.
 *   A caller with a 20 dB loss can then talk over the answer well below its level.
 *
 * When the emulator has sent nothing for the window (no answer, or a paused one), nothing is echo.
 * Cheap: one max over at most 100 numbers per frame, no correlation.
 */

/**
 * Longest echo delay considered (ms): loopback calls see 50-300 ms; a loaded machine (a late event
 * loop on either side, a grown jitter buffer) adds hundreds more. A longer window only makes the
 * detector more careful while the answer plays (it compares with the loudest frame in it).
 */
export const ECHO_WINDOW_MS = 1000;
/** The threshold sits this far above the measured echo return loss. */
const MARGIN_DB = 6;
/** Geigel's starting point (-6 dB) and the loudest an echo is ever taken to be. */
const START_RATIO = 0.5;
/** The quietest echo path estimated (-40 dB). */
const MIN_RATIO = 0.01;
/** Far-end frames quieter than this (RMS, PCM16 units: about -60 dBFS) are not sending. */
const SILENT_RMS = 33;
/** Microphone frames quieter than this (about -50 dBFS) teach nothing about the echo path. */
const LEARN_RMS = 104;

export class EchoGuard {
  /** Levels of the frames sent, with when (ms, the caller's clock), oldest first. */
  readonly #reference: Array<{ at: number; level: number }> = [];
  readonly #windowMs: number;
  /** Estimated echo return: mic RMS / far-end RMS, log-averaged over echo frames. */
  #ratio = START_RATIO / 10 ** (MARGIN_DB / 20);
  /** Far-end frames sent, for tests and stats. */
  sent = 0;
  /** Microphone frames found to be echo. */
  echoes = 0;

  constructor(windowMs = ECHO_WINDOW_MS) {
    this.#windowMs = windowMs;
  }

  /** One 10 ms frame the emulator sent (any rate) at `now` (ms). */
  sentFrame(samples: Int16Array, now: number): void {
    this.#reference.push({ at: now, level: rms(samples) });
    this.#forget(now);
    this.sent++;
  }

  #forget(now: number): void {
    while (this.#reference.length && this.#reference[0]!.at < now - this.#windowMs) this.#reference.shift();
  }

  /** The echo threshold now (mic RMS / far-end RMS at or below which a frame is echo). */
  get threshold(): number {
    return Math.min(START_RATIO, this.#ratio * 10 ** (MARGIN_DB / 20));
  }

  /** Whether a microphone frame (RMS in PCM16 units) heard at `now` (ms) is explained by what was sent. */
  isEcho(micRms: number, now: number): boolean {
    this.#forget(now);
    let far = 0;
    for (const { level } of this.#reference) if (level > far) far = level;
    if (far < SILENT_RMS || micRms === 0) return false;
    const ratio = micRms / far;
    if (ratio > this.threshold) return false;
    if (micRms >= LEARN_RMS) {
      const clamped = Math.max(MIN_RATIO, ratio);
      const rate = clamped > this.#ratio ? 0.3 : 0.01;
      this.#ratio = Math.exp((1 - rate) * Math.log(this.#ratio) + rate * Math.log(clamped));
    }
    this.echoes++;
    return true;
  }
}

export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let e = 0;
  for (const s of samples) e += s * s;
  return Math.sqrt(e / samples.length);
}
