// The page of test/e2e/noise.spec.ts: a VoiceSession on kb-voice/testing's scripted service (no
// network call) whose microphone is Chromium's fake device, and the voice gate measured on sound
// the page synthesizes with Web Audio. Bundled by the test with esbuild (code splitting on, as an
// app's bundler does), so `import('kb-voice/noise')` is a chunk of its own.
import { VoiceSession, type NoiseSuppressionMode } from 'kb-voice';
import { ScriptedService } from 'kb-voice/testing';
import { seededRandom } from '../../../emulator/src/lab/random.js';

/** Where the test serves rnnoise's worklet and WebAssembly (esbuild does not follow `new URL(…, import.meta.url)`). */
const assets = { workletUrl: '/noise/rnnoise-worklet.js', wasmUrl: '/noise/rnnoise_simd.wasm' };

/** What the gate let through of one sound. */
export interface GateResult {
  /** Share of 20 ms windows of the output louder than -50 dBFS. */
  audible: number;
  /** Peak output RMS. */
  peak: number;
  stats: { frames: number; sent: number; voiced: number };
}

declare global {
  interface Window {
    noise: {
      call(mode: NoiseSuppressionMode): Promise<unknown>;
      gate(sound: Sound): Promise<GateResult>;
    };
  }
}

/** The test's sounds: the TTS question, or 4 s of beeps, keyboard-like clicks or fan-like noise (no voice). */
export type Sound = 'speech' | 'beeps' | 'clicks' | 'fan';

async function sound(context: AudioContext, kind: Sound): Promise<AudioBuffer> {
  if (kind === 'speech') return context.decodeAudioData(await (await fetch('/audio/e2e-question.wav')).arrayBuffer());
  const rate = context.sampleRate;
  const buffer = context.createBuffer(1, rate * 4, rate);
  const data = buffer.getChannelData(0);
  const uniform = seededRandom(7);
  const random = () => uniform() * 2 - 1;
  let lowpass = 0;
  for (let i = 0; i < data.length; i++) {
    const t = i / rate;
    lowpass = 0.97 * lowpass + 0.03 * random(); // fan: low-passed noise
    const beep = t % 1 < 0.2 ? 0.3 * Math.sin(2 * Math.PI * 1000 * t) : 0; // 200 ms beep each second
    const click = i % Math.round(rate * 0.37) < 24 ? 0.6 * random() : 0; // keyboard-like clicks
    data[i] = kind === 'beeps' ? beep : kind === 'clicks' ? click : 0.5 * lowpass;
  }
  return buffer;
}

window.noise = {
  async call(mode) {
    const service = new ScriptedService();
    const session = new VoiceSession({
      aiId: 'robot', ...service.sessionOptions, microphone: {}, noiseSuppression: mode,
      noiseModule: () => import('kb-voice/noise'), noiseAssets: assets,
    });
    await session.start();
    const status = session.getSnapshot().noiseSuppression;
    await session.end({ mode: 'immediate' });
    return status;
  },

  async gate(kind) {
    const { processMicrophone } = await import('kb-voice/noise');
    const context = new AudioContext({ sampleRate: 48000 });
    const source = context.createBufferSource();
    source.buffer = await sound(context, kind);
    const destination = context.createMediaStreamDestination();
    source.connect(destination);
    const processing = await processMicrophone(destination.stream, { gate: {}, assets });
    const analyser = context.createAnalyser();
    analyser.fftSize = 1024;
    context.createMediaStreamSource(processing.stream).connect(analyser);
    source.start();
    const window20 = new Float32Array(analyser.fftSize);
    let windows = 0;
    let audible = 0;
    let peak = 0;
    await new Promise<void>((resolve) => {
      const until = performance.now() + (source.buffer!.duration + 0.8) * 1000;
      const timer = setInterval(() => {
        analyser.getFloatTimeDomainData(window20);
        let energy = 0;
        for (const s of window20) energy += s * s;
        const rms = Math.sqrt(energy / window20.length);
        windows++;
        if (rms > 10 ** (-50 / 20)) audible++;
        peak = Math.max(peak, rms);
        if (performance.now() > until) {
          clearInterval(timer);
          resolve();
        }
      }, 20);
    });
    // The worklet posts its counters once a second: wait for the last of them.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const stats = { ...processing.stats };
    processing.close();
    await context.close();
    return { audible: audible / windows, peak, stats };
  },
};
