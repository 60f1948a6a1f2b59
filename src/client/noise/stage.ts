import { stopStream } from '../media.js';
import { missingForRnnoise, voiceProcessing, type NoiseAssets, type NoiseFallbackReason, type NoiseModule, type NoiseProcessing, type NoiseSuppressionMode, type NoiseSuppressionStatus } from './suppression.js';
import { voiceGateSettings, type VoiceGateOptions } from './voice-gate.js';

/** Options of {@link NoiseStage} (VoiceSession's, by the same names). */
export interface NoiseStageOptions {
  noiseSuppression?: NoiseSuppressionMode;
  noiseModule?: () => Promise<NoiseModule>;
  noiseAssets?: NoiseAssets;
  voiceGate?: VoiceGateOptions | false;
}

/** Latency of the rnnoise path beyond the gate's pre-roll: one 10 ms frame and a render quantum. */
const FRAMING_MS = 13;

/**
 * The microphone's cleaning stage during one call (an effect: it reports its status, never emits).
 * It says which getUserMedia voice-processing constraints to open the microphone with, and with
 * `rnnoise` puts each opened stream through `kb-voice/noise` (loaded only then). Where rnnoise
 * cannot run (no module given, no AudioWorklet or WebAssembly: known before the microphone opens;
 * or loading failed: the browser's noise suppression is switched back on the open track) the
 * browser's processing cleans the call and the status says why.
 */
export class NoiseStage {
  private _status: NoiseSuppressionStatus;
  private readonly gate: VoiceGateOptions | false;
  /** The processing of each raw stream given to {@link apply}, closed with it. */
  private readonly processing = new Map<MediaStream, NoiseProcessing | undefined>();
  private closed = false;

  constructor(private readonly options: NoiseStageOptions, private readonly report: (status: NoiseSuppressionStatus) => void, scope: { AudioWorkletNode?: unknown; WebAssembly?: unknown } = globalThis) {
    const requested = options.noiseSuppression ?? 'browser';
    if (!['browser', 'rnnoise', 'off'].includes(requested)) throw new RangeError(`noiseSuppression must be 'browser', 'rnnoise' or 'off' (got ${String(requested)})`);
    // Settings are checked now, whatever the mode, so a bad one fails at construction.
    this.gate = options.voiceGate === false ? false : voiceGateSettings(options.voiceGate);
    const missing = requested === 'rnnoise' ? (options.noiseModule ? missingForRnnoise(scope) : 'no_module') : undefined;
    this._status = this.statusOf(requested, missing);
  }

  get status(): NoiseSuppressionStatus {
    return this._status;
  }

  /** getUserMedia voice-processing constraints of what will run. */
  get constraints(): MediaTrackConstraints {
    return voiceProcessing(this._status.active);
  }

  /** How much later than spoken the service hears the caller (ms): the gate's pre-roll and rnnoise's framing; 0 otherwise. */
  get latencyMs(): number {
    if (this._status.active !== 'rnnoise') return 0;
    return FRAMING_MS + (this.gate === false ? 0 : this.gate.preRollMs ?? 0);
  }

  /** The stream to send for the opened `raw` one: rnnoise's output, or `raw` itself. */
  async apply(raw: MediaStream): Promise<MediaStream> {
    if (this._status.active !== 'rnnoise' || this.closed) return raw;
    this.processing.set(raw, undefined);
    try {
      const module = await this.options.noiseModule!();
      const processing = await module.processMicrophone(raw, { gate: this.gate, ...(this.options.noiseAssets ? { assets: this.options.noiseAssets } : {}) });
      if (this.closed || !this.processing.has(raw)) {
        processing.close();
        return raw;
      }
      this.processing.set(raw, processing);
      return processing.stream;
    } catch {
      this.processing.delete(raw);
      this.fallBack('load_failed', raw);
      return raw;
    }
  }

  /** `raw` is no longer used (device switched): its processing stops, and its tracks. */
  release(raw: MediaStream): void {
    if (!this.processing.has(raw)) return;
    this.processing.get(raw)?.close();
    this.processing.delete(raw);
    stopStream(raw);
  }

  /** The call is over: every processing stops with its microphone. Idempotent. */
  close(): void {
    this.closed = true;
    for (const raw of [...this.processing.keys()]) this.release(raw);
  }

  private fallBack(reason: NoiseFallbackReason, raw: MediaStream): void {
    // The track was opened without the browser's noise suppression (rnnoise was to replace it).
    for (const track of raw.getAudioTracks()) void track.applyConstraints?.(voiceProcessing('browser')).catch(() => undefined);
    if (this._status.active !== 'rnnoise') return;
    this._status = this.statusOf(this._status.requested, reason);
    this.report(this._status);
  }

  private statusOf(requested: NoiseSuppressionMode, reason: NoiseFallbackReason | undefined): NoiseSuppressionStatus {
    const active = reason ? 'browser' : requested;
    return Object.freeze({ requested, active, ...(reason ? { reason } : {}), gate: active === 'rnnoise' && this.gate !== false });
  }
}
