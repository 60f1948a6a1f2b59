import type { Clock } from '../../clock.js';
import type { VoiceGateOptions } from './voice-gate.js';

/** Option `noiseSuppression`: who cleans the microphone. */
export type NoiseSuppressionMode = 'browser' | 'rnnoise' | 'off';

/** Why `rnnoise` was asked for but the browser's processing runs instead. */
export type NoiseFallbackReason = 'no_module' | 'no_audio_worklet' | 'load_failed';

/** `snapshot.noiseSuppression`: what was asked for and what runs. */
export interface NoiseSuppressionStatus {
  readonly requested: NoiseSuppressionMode;
  /** What cleans the microphone now (`browser` also when `rnnoise` could not run). */
  readonly active: NoiseSuppressionMode;
  /** Set when `active` differs from `requested`. */
  readonly reason?: NoiseFallbackReason;
  /** Whether the client voice gate runs (only with `rnnoise` active). */
  readonly gate: boolean;
  /**
   * Times rnnoise's output turned non-finite and it was reset (each costs 10 ms of silence); absent
   * until the first. Non-finite or out-of-range samples are dropped or clamped before rnnoise.
   */
  readonly resets?: number;
}

/** Where the lazy entry's worklet and rnnoise's WebAssembly are served; default beside `kb-voice/noise`. */
export interface NoiseAssets {
  workletUrl?: string | URL;
  /** rnnoise's WebAssembly SIMD build (`rnnoise_simd.wasm`). */
  wasmUrl?: string | URL;
}

/** One microphone stream going through rnnoise: what is sent, and how to stop it. */
export interface NoiseProcessing {
  readonly stream: MediaStream;
  close(): void;
}

/** What `kb-voice/noise` exports (the option `noiseModule` loads it); `onReset`: rnnoise was reset `added` more times. */
export interface NoiseModule {
  processMicrophone(raw: MediaStream, options: { gate: VoiceGateOptions | false; assets?: NoiseAssets; clock?: Clock; onReset?: (added: number) => void }): Promise<NoiseProcessing>;
}

/** The getUserMedia voice-processing constraints of each mode (rnnoise replaces only the browser's noise suppression). */
export function voiceProcessing(mode: NoiseSuppressionMode): { echoCancellation: boolean; noiseSuppression: boolean; autoGainControl: boolean } {
  // The answer's echo still needs the browser's canceller with rnnoise: it removes noise, not echo.
  const on = mode !== 'off';
  return { echoCancellation: on, noiseSuppression: mode === 'browser', autoGainControl: on };
}
