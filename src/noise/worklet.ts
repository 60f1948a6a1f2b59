/**
 * The AudioWorklet processor `kb-voice-rnnoise` (bundled alone into dist/noise/rnnoise-worklet.js by
 * scripts/build.mjs and loaded with `audioWorklet.addModule`): rnnoise on the microphone, then the
 * voice gate, through {@link FrameProcessor}. It instantiates rnnoise from the bytes the page
 * fetched (a worklet has no fetch), says `ready` or `error` on its port, and posts its counters
 * once a second.
 */
import type { VoiceGateOptions } from '../client/noise/voice-gate.js';
import { FrameProcessor } from './frame-processor.js';
import { instantiateRnnoise, type Rnnoise } from './rnnoise-wasm.js';

/** The worklet scope's globals (not in TypeScript's DOM library). */
declare const registerProcessor: (name: string, processor: new (options: { processorOptions: RnnoiseProcessorOptions }) => unknown) => void;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}

export interface RnnoiseProcessorOptions {
  wasm: ArrayBuffer;
  gate: VoiceGateOptions | false;
}

/** Messages the processor posts. */
export type WorkletMessage =
  | { type: 'ready' }
  | { type: 'error'; message: string }
  | { type: 'stats'; frames: number; sent: number; voiced: number; resets: number; busyMs: number };

const STATS_EVERY_FRAMES = 100;

class RnnoiseProcessor extends AudioWorkletProcessor {
  private rnnoise: Rnnoise | undefined;
  private readonly processor: FrameProcessor;
  private closed = false;
  private reported = 0;
  private resets = 0;
  private busyMs = 0;

  constructor(options: { processorOptions: RnnoiseProcessorOptions }) {
    super();
    const { wasm, gate } = options.processorOptions;
    this.processor = new FrameProcessor((frame) => this.rnnoise?.denoise(frame) ?? 0, gate, () => this.rnnoise?.reset());
    instantiateRnnoise(wasm).then(
      (rnnoise) => {
        this.rnnoise = rnnoise;
        this.post({ type: 'ready' });
      },
      (err: unknown) => this.post({ type: 'error', message: (err as Error)?.message ?? String(err) }),
    );
    this.port.onmessage = (event: MessageEvent) => {
      if ((event.data as { type?: string })?.type === 'close') {
        this.closed = true;
        this.rnnoise?.destroy();
      }
    };
  }

  process(inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    if (this.closed) return false;
    const input = inputs[0]?.[0];
    const output = outputs[0]?.[0];
    if (!output) return true;
    if (!input || !this.rnnoise) {
      output.fill(0);
      return true;
    }
    const began = typeof performance === 'undefined' ? 0 : performance.now();
    this.processor.process(input, output);
    for (let c = 1; c < (outputs[0]?.length ?? 0); c++) outputs[0]![c]!.set(output);
    if (began) this.busyMs += performance.now() - began;
    const { frames, sent, voiced, resets } = this.processor.counters;
    // A reset is told at once (the session shows it), the rest once a second.
    if (frames - this.reported >= STATS_EVERY_FRAMES || resets !== this.resets) {
      this.reported = frames;
      this.resets = resets;
      this.post({ type: 'stats', frames, sent, voiced, resets, busyMs: this.busyMs });
    }
    return true;
  }

  private post(message: WorkletMessage): void {
    this.port.postMessage(message);
  }
}

registerProcessor('kb-voice-rnnoise', RnnoiseProcessor);
