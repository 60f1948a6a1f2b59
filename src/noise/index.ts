/**
 * `kb-voice/noise`: rnnoise and the client voice gate for `noiseSuppression: 'rnnoise'`, loaded
 * only by the apps that enable it:
 *
 * ```ts skip (needs a browser with a microphone)
 * new VoiceSession({ aiId, api, noiseSuppression: 'rnnoise', noiseModule: () => import('kb-voice/noise') });
 * ```
 *
 * The worklet (`rnnoise-worklet.js`) and rnnoise's WebAssembly SIMD build (`rnnoise_simd.wasm`,
 * from `@sapphi-red/web-noise-suppressor`, MIT; rnnoise itself BSD-3-Clause) are fetched next to this
 * module. Each URL is written as a literal `new URL('./file', import.meta.url)`: bundlers copy an asset only
 * for that exact shape, not for a URL built through a helper (Vite emitted neither file then). Vite (dev and
 * build), webpack 5 and Next.js emit and serve both (test/apps proves it). The option `noiseAssets` points
 * elsewhere: esbuild (which copies no such asset), Rollup without an import.meta assets plugin, a CDN
 * (docs/csp.md).
 */
import { sleep, systemClock, type Clock } from '../clock.js';
import type { NoiseAssets, NoiseProcessing } from '../client/noise/suppression.js';
import type { VoiceGateOptions } from '../client/noise/voice-gate.js';
import { voiceGateSettings } from '../client/noise/voice-gate.js';
import type { RnnoiseProcessorOptions, WorkletMessage } from './worklet.js';

export { VoiceGate, VOICE_GATE_DEFAULTS, voiceGateSettings, type VoiceGateOptions, type GateStep } from '../client/noise/voice-gate.js';
export { FrameProcessor, FRAME_SAMPLES, type Denoise, type FrameCounters } from './frame-processor.js';
export { instantiateRnnoise, type Rnnoise } from './rnnoise-wasm.js';
export { fft } from './fft.js';
export type { NoiseAssets, NoiseModule, NoiseProcessing } from '../client/noise/suppression.js';

/** rnnoise runs at 48 kHz (the context resamples the microphone to it). */
const SAMPLE_RATE = 48000;
/** How long the worklet may take to compile rnnoise before the call falls back to the browser's processing. */
const READY_TIMEOUT_MS = 5000;

/** A WebAssembly module using one SIMD instruction: validates only where SIMD runs. */
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

/** Counters of the running processor (updated once a second from the worklet). */
export interface RnnoiseStats {
  frames: number;
  sent: number;
  voiced: number;
  /** Times rnnoise's output turned non-finite and it was reset. */
  resets: number;
}

/** {@link NoiseProcessing} with the worklet's counters. */
export interface RnnoiseProcessing extends NoiseProcessing {
  readonly stats: RnnoiseStats;
}

/** The URLs {@link processMicrophone} fetches (for the bench and CSP allow-lists). */
export function rnnoiseAssetUrls(assets: NoiseAssets = {}): { worklet: string; wasm: string } {
  // Literal `new URL('./…', import.meta.url)` each (see above): the only shape bundlers follow.
  const worklet = assets.workletUrl ?? new URL('./rnnoise-worklet.js', import.meta.url);
  const wasm = assets.wasmUrl ?? new URL('./rnnoise_simd.wasm', import.meta.url);
  return { worklet: String(worklet), wasm: String(wasm) };
}

/**
 * Puts a microphone stream through rnnoise and the voice gate in an AudioWorklet; resolves with
 * the stream to send once rnnoise runs. Rejects when something is missing or fails to load (the
 * session then falls back to the browser's processing); `close()` stops the graph (not `raw`).
 */
export async function processMicrophone(raw: MediaStream, options: { gate: VoiceGateOptions | false; assets?: NoiseAssets; clock?: Clock; onReset?: (added: number) => void }): Promise<RnnoiseProcessing> {
  const clock = options.clock ?? systemClock;
  // Only the SIMD build ships (see scripts/build.mjs): without SIMD the browser's processing stays.
  if (!WebAssembly.validate(SIMD_PROBE)) throw new Error('this browser runs no WebAssembly SIMD');
  const urls = rnnoiseAssetUrls(options.assets);
  const gate = options.gate === false ? false : voiceGateSettings(options.gate);
  const context = new AudioContext({ sampleRate: SAMPLE_RATE, latencyHint: 'interactive' });
  const stats: RnnoiseStats = { frames: 0, sent: 0, voiced: 0, resets: 0 };
  try {
    const [wasm] = await Promise.all([
      fetch(urls.wasm).then((res) => {
        if (!res.ok) throw new Error(`rnnoise WebAssembly: HTTP ${res.status} for ${urls.wasm}`);
        return res.arrayBuffer();
      }),
      context.audioWorklet.addModule(urls.worklet),
    ]);
    const processorOptions: RnnoiseProcessorOptions = { wasm, gate };
    const node = new AudioWorkletNode(context, 'kb-voice-rnnoise', {
      numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1], channelCount: 1, channelCountMode: 'explicit', processorOptions,
    });
    await new Promise<void>((resolve, reject) => {
      const timer = clock.setTimeout(() => reject(new Error(`rnnoise did not start within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
      node.port.onmessage = (event: MessageEvent<WorkletMessage>) => {
        const message = event.data;
        if (message.type === 'stats') {
          const added = message.resets - stats.resets;
          Object.assign(stats, { frames: message.frames, sent: message.sent, voiced: message.voiced, resets: message.resets });
          if (added > 0) options.onReset?.(added);
        }
        if (message.type === 'ready') resolve();
        if (message.type === 'error') reject(new Error(`rnnoise failed to start: ${message.message}`));
        if (message.type !== 'stats') clock.clearTimeout(timer);
      };
    });
    const source = context.createMediaStreamSource(raw);
    const destination = context.createMediaStreamDestination();
    destination.channelCount = 1;
    source.connect(node).connect(destination);
    // A context made without a user gesture may start suspended: its output would be silence.
    if (context.state !== 'running') await Promise.race([context.resume(), sleep(clock, 1000)]);
    if (context.state !== 'running') throw new Error('the AudioContext stays suspended (no user gesture yet)');
    let closed = false;
    return {
      stream: destination.stream,
      stats,
      close() {
        if (closed) return;
        closed = true;
        node.port.postMessage({ type: 'close' });
        source.disconnect();
        node.disconnect();
        for (const track of destination.stream.getTracks()) track.stop();
        void context.close().catch(() => undefined);
      },
    };
  } catch (err) {
    void context.close().catch(() => undefined);
    throw err;
  }
}
