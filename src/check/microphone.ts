import { sleep, type Clock } from '../clock.js';
import { VoiceSessionError } from '../client/errors.js';
import type { LevelMeterFactory } from '../client/levels.js';
import { openMicrophone, stopStream, type MicrophoneSource } from '../client/media.js';
import type { MicrophoneCheck } from './types.js';

/** Below this level (0..1 on the meters' -60..0 dB scale, i.e. about -57 dBFS) a whole second counts as silence. */
export const SILENCE_LEVEL = 0.05;
/** How often the level is read while listening (ms). */
const READ_EVERY_MS = 50;

export interface MicrophoneCheckOptions {
  source: MicrophoneSource | undefined;
  clock: Clock;
  /** How long to listen for a level (ms); default 1000. */
  listenMs: number;
  /** A meter for the opened stream; undefined where the platform has none (the level is then not measured). */
  meter: LevelMeterFactory | undefined;
  signal?: AbortSignal;
}

const part = (grade: MicrophoneCheck['grade'], code: string, message: string, peakLevel: number | null = null): MicrophoneCheck => ({ grade, code, message, peakLevel });

/**
 * Opens the microphone (permission, device), listens for `listenMs` and keeps the loudest level:
 * a second of digital silence means a muted input (a hardware switch, the system's input volume).
 * Resolves with the part and, when it opened, the stream (the caller reuses it for the test
 * connection and stops it).
 */
export async function checkMicrophone(options: MicrophoneCheckOptions): Promise<{ part: MicrophoneCheck; stream?: MediaStream }> {
  let stream: MediaStream;
  try {
    stream = await openMicrophone(options.source);
  } catch (err) {
    const code = err instanceof VoiceSessionError ? err.code : 'microphone_unavailable';
    if (code === 'microphone_denied') return { part: part('bad', 'microphone_denied', 'The microphone was refused: allow it for this site in the browser\'s address bar, then try again.') };
    return { part: part('bad', 'microphone_missing', 'No microphone could be opened: plug one in, or close the app that holds it, then try again.') };
  }
  if (options.signal?.aborted) return { part: part('skipped', 'cancelled', 'The check was cancelled.'), stream };
  const track = stream.getAudioTracks()[0];
  const meter = options.meter?.(stream);
  if (!meter) {
    return { part: part('good', 'microphone_ok', `The microphone "${track?.label ?? ''}" is open (its level could not be measured here).`), stream };
  }
  let peak = 0;
  let measured = false;
  try {
    const reads = Math.max(1, Math.round(options.listenMs / READ_EVERY_MS));
    for (let i = 0; i < reads && !options.signal?.aborted; i++) {
      await sleep(options.clock, READ_EVERY_MS);
      const level = meter.read();
      if (level === undefined) continue;
      measured = true;
      peak = Math.max(peak, level);
    }
  } finally {
    meter.close();
  }
  const peakLevel = measured ? Math.round(peak * 1000) / 1000 : null;
  if (options.signal?.aborted) return { part: part('skipped', 'cancelled', 'The check was cancelled.', peakLevel), stream };
  if (track?.muted) return { part: part('warning', 'microphone_muted', 'The microphone is muted by the system or the device: unmute it.', peakLevel), stream };
  if (!measured) return { part: part('good', 'microphone_ok', 'The microphone is open (the browser did not let its level be measured yet).', null), stream };
  if (peak < SILENCE_LEVEL) return { part: part('warning', 'microphone_silent', 'The microphone sends only silence: check it is not muted (a switch on the device, the system\'s input volume) and speak.', peakLevel), stream };
  return { part: part('good', 'microphone_ok', 'The microphone works and hears sound.', peakLevel), stream };
}

/** Releases what {@link checkMicrophone} opened. */
export const releaseMicrophone = (stream: MediaStream | undefined): void => stopStream(stream);
