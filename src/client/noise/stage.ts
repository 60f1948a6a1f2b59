import type { SessionEffect } from '../effects.js';
import type { Clock } from '../../clock.js';
import { stopStream } from '../media.js';
import { voiceProcessing, type NoiseAssets, type NoiseFallbackReason, type NoiseModule, type NoiseProcessing, type NoiseSuppressionMode, type NoiseSuppressionStatus } from './suppression.js';
import { VOICE_GATE_DEFAULTS, type VoiceGateOptions } from './voice-gate.js';

/** Options of {@link NoiseStage} (VoiceSession's, by the same names). */
export interface NoiseStageOptions {
  noiseSuppression?: NoiseSuppressionMode;
  noiseModule?: () => Promise<NoiseModule>;
  noiseAssets?: NoiseAssets;
  voiceGate?: VoiceGateOptions | false;
  /** The session's clock: rnnoise's load waits on it. */
  clock?: Clock;
}

/** Latency of the rnnoise path beyond the gate's pre-roll: one 10 ms frame and a render quantum. */
const FRAMING_MS = 13;

/**
 * The microphone's cleaning stage during one call (an effect: it reports its status, never emits).
 * It says which getUserMedia voice-processing constraints to open the microphone with, and with
 * `rnnoise` puts each opened stream through `kb-voice/noise` (loaded only then). Where rnnoise
 * cannot run (no module given, no AudioWorklet: known before the microphone opens; or it failed to
 * start: the browser's noise suppression is switched back on the open track) the browser's
 * processing cleans the call and the status says why. Its code stays small: it is in every call.
 */
export class NoiseStage implements SessionEffect {
  status: NoiseSuppressionStatus;
  /** Each raw stream given to {@link apply} with its processing (once started), released together. */
  private readonly processing = new Map<MediaStream, NoiseProcessing | undefined>();

  constructor(private readonly options: NoiseStageOptions, private readonly report: (status: NoiseSuppressionStatus) => void, scope: { AudioWorkletNode?: unknown } = globalThis) {
    const mode = options.noiseSuppression ?? 'browser';
    // The mode is checked with every option (option-limits.ts); the gate's settings when rnnoise starts.
    this.status = this.statusOf(mode, mode === 'rnnoise' ? (!options.noiseModule ? 'no_module' : typeof scope.AudioWorkletNode !== 'function' ? 'no_audio_worklet' : undefined) : undefined);
  }

  /** getUserMedia voice-processing constraints of what will run. */
  get constraints(): MediaTrackConstraints {
    return voiceProcessing(this.status.active);
  }

  /** How much later than spoken the service hears the caller (ms): rnnoise's framing and the gate's pre-roll; 0 otherwise. */
  get latencyMs(): number {
    const gate = this.options.voiceGate;
    return this.status.active !== 'rnnoise' ? 0 : FRAMING_MS + (gate === false ? 0 : gate?.preRollMs ?? VOICE_GATE_DEFAULTS.preRollMs);
  }

  /** The stream to send for the opened `raw` one: rnnoise's output, or `raw` itself. */
  async apply(raw: MediaStream): Promise<MediaStream> {
    if (this.status.active !== 'rnnoise') return raw;
    this.processing.set(raw, undefined);
    try {
      const { voiceGate, noiseAssets, clock } = this.options;
      const onReset = (added: number) => {
        if (this.processing.has(raw)) this.report((this.status = Object.freeze({ ...this.status, resets: (this.status.resets ?? 0) + added })));
      };
      const processing = await (await this.options.noiseModule!()).processMicrophone(raw, { gate: voiceGate ?? {}, onReset, ...(noiseAssets ? { assets: noiseAssets } : {}), ...(clock ? { clock } : {}) });
      if (!this.processing.has(raw)) processing.close(); // released meanwhile
      else this.processing.set(raw, processing);
      return processing.stream;
    } catch {
      this.processing.delete(raw);
      // The track was opened without the browser's noise suppression (rnnoise was to replace it).
      for (const track of raw.getAudioTracks()) void track.applyConstraints?.(voiceProcessing('browser')).catch(() => undefined);
      if (this.status.active === 'rnnoise') this.report((this.status = this.statusOf('rnnoise', 'load_failed')));
      return raw;
    }
  }

  /** `raw` is no longer used (device switched, call over): its processing stops, and its tracks. */
  release(raw: MediaStream): void {
    this.processing.get(raw)?.close();
    this.processing.delete(raw);
    stopStream(raw);
  }

  /** The call is over: every processing stops with its microphone. Idempotent. */
  close(): void {
    for (const raw of [...this.processing.keys()]) this.release(raw);
  }

  private statusOf(requested: NoiseSuppressionMode, reason: NoiseFallbackReason | undefined): NoiseSuppressionStatus {
    const active = reason ? 'browser' : requested;
    return Object.freeze({ requested, active, ...(reason ? { reason } : {}), gate: active === 'rnnoise' && this.options.voiceGate !== false });
  }
}
