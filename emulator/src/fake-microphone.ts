import wrtc from '@roamhq/wrtc';
import { generateNoise, mixAtSnr, NOISE_SAMPLE_RATE, noiseAtSnr, type NoiseName } from './lab/noise.js';
import { resample, toMono } from './realtime/pcm.js';
import { synthesizeFlite, type FliteVoice } from './realtime/tts-flite.js';
import { releaseBeforeExit } from './realtime/wrtc-exit.js';
import { decodeWav } from './wav.js';

/**
 * The stream `open()` hands out: the DOM's `MediaStream` where DOM types are loaded (so it fits
 * `VoiceSession`'s `microphone` option), otherwise the little of it a Node script uses.
 */
export type FakeMicrophoneStream = typeof globalThis extends { MediaStream: { prototype: infer T } }
  ? T
  : { getTracks(): Array<{ stop(): void }> };

const RATE = 48_000;
const FRAME = 480; // 10 ms at 48 kHz: what RTCAudioSource expects
/** onData copies the samples, so one frame of zeros serves every silent frame of every microphone. */
const SILENT_FRAME = new Int16Array(FRAME);
/** After a stall longer than this, skip ahead instead of bursting: a real microphone does not deliver the past. */
const MAX_LAG_FRAMES = 20;
/** Default silence after speech with `sendSilence: false`: more than the emulator's VAD needs to end the utterance (600 ms). */
const SILENCE_TAIL_MS = 1000;

// One timer paces every open microphone, so a QA script with dozens of callers costs one interval.
const open = new Set<FakeMicrophone>();
let ticker: ReturnType<typeof setInterval> | undefined;
function track(mic: FakeMicrophone, on: boolean): void {
  if (on) open.add(mic);
  else open.delete(mic);
  if (open.size && !ticker) ticker = setInterval(() => { for (const m of open) m.pump(); }, 5);
  if (!open.size && ticker) ticker = void clearInterval(ticker);
}

export interface FakeMicrophoneOptions {
  /**
   * Base URL of the emulator the calls go to (e.g. `emu.url`), for {@link FakeMicrophone.playWav}'s
   * `transcript`: the words are queued there with `PUT /_emulator/script` (loopback only).
   */
  emulatorUrl?: string;
  /**
   * `true` (default): the track carries 10 ms frames all the time, silence between clips, as an
   * open browser microphone does. `false`: frames flow only while a clip plays and for
   * `silenceTailMs` after it (so the far end's voice detection ends the utterance); the rest of the
   * time the track sends nothing, like a muted one. A load test's listening callers then cost
   * neither side any audio work.
   */
  sendSilence?: boolean;
  /** With `sendSilence: false`, the silence sent after each clip (ms). Default 1000. */
  silenceTailMs?: number;
}

export interface PlayWavOptions {
  /**
   * What the emulator should take this utterance to say (it has no speech recognizer): the turn
   * answers these words and is marked `scripted: true`. Needs `emulatorUrl`.
   */
  transcript?: string;
  /** Scripts the words for this session only (e.g. `session.sessionId`); default: the next utterance of any session. */
  sessionId?: string;
}

export interface NoiseOverlayOptions {
  /**
   * Level relative to the nominal speech level (-26 dBFS, ITU-T P.56): 10 means 10 dB quieter than
   * a caller speaking normally. Default 10. A named noise is scaled to it; with raw samples it is
   * only applied when given.
   */
  snrDb?: number;
  /** Length of a named noise (ms). Default 2000. */
  durationMs?: number;
  /** Seed of a named noise (default 1): the same seed, the same sound. */
  seed?: number;
  /** Rate of raw samples. Default 48000. */
  sampleRate?: number;
}

export interface SayOptions {
  /** A noise under the words: a lab fixture name or mono samples (at `noiseSampleRate`, default 16 kHz). */
  noise?: NoiseName | Int16Array;
  noiseSampleRate?: number;
  /** Speech-to-noise ratio (dB) of that noise against the words. Default 10. */
  snrDb?: number;
  /** Flite voice of the words (default `kal16`). */
  voice?: FliteVoice;
  /** Scripts the words for this session only; default: the next utterance of any session. */
  sessionId?: string;
}

/** What {@link FakeMicrophone.noise} mixes in, at 48 kHz. */
function noisePcm(noise: NoiseName | Int16Array, options: NoiseOverlayOptions): Int16Array {
  if (typeof noise === 'string') {
    const named = generateNoise(noise, { durationMs: options.durationMs ?? 2000, seed: options.seed ?? 1 });
    return resample(noiseAtSnr(named, options.snrDb ?? 10), NOISE_SAMPLE_RATE, RATE);
  }
  const rate = options.sampleRate ?? RATE;
  if (options.snrDb === undefined) return resample(noise, rate, RATE);
  return resample(noiseAtSnr(resample(noise, rate, NOISE_SAMPLE_RATE), options.snrDb), NOISE_SAMPLE_RATE, RATE);
}

/** A scripted transcript could not be queued on the emulator. */
export class FakeMicrophoneError extends Error {
  readonly code = 'script_failed';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FakeMicrophoneError';
  }
}

/**
 * A microphone for driving `VoiceSession` from Node (QA scripts, tests, load runs): an
 * `RTCAudioSource` track that delivers 10 ms frames in real time, silence unless {@link play} is
 * speaking, paced from the wall clock so it never drifts.
 *
 * ```ts
 * const mic = new FakeMicrophone();
 * const session = new VoiceSession({ aiId, api, wrtc, microphone: mic.open });
 * await session.start();
 * await mic.playWav(await readFile('question.wav'));
 * ```
 *
 * With `new FakeMicrophone({ emulatorUrl: emu.url })`, `playWav(wav, { transcript })` also tells
 * the emulator what the recording says, so the turn answers those words.
 */
export class FakeMicrophone {
  /** Dropped by close(), so the process can exit cleanly (realtime/wrtc-exit.ts). */
  #source: InstanceType<typeof wrtc.nonstandard.RTCAudioSource> | undefined = new wrtc.nonstandard.RTCAudioSource();
  /** Every stream handed out by {@link open}, e.g. to check that a session released the microphone. */
  readonly streams: FakeMicrophoneStream[] = [];
  /** The device id asked for by each {@link open} call (VoiceSession passes one on device switches). */
  readonly opened: Array<string | undefined> = [];
  /** Frames to speak; the last frame of each clip carries the resolver of its `play()`. */
  #queue: Array<{ frame: Int16Array; done?: () => void }> = [];
  #startedAt = performance.now();
  #sent = 0;
  /** Frames handed to the track so far (speech and silence). */
  #framesSent = 0;
  /** With `sendSilence: false`: frames of silence still to send after the last clip. */
  #tailLeft = 0;
  readonly #sendSilence: boolean;
  readonly #tailFrames: number;
  readonly #emulatorUrl: string | undefined;
  #closed = false;
  /** Resolves when everything played so far has gone out: a scripted clip waits for it, so its words are queued right before its own speech. */
  #lastPlay: Promise<unknown> = Promise.resolve();
  /** Sounds mixed over whatever goes out (speech or silence), from when they were started. */
  #overlays: Array<{ samples: Int16Array; offset: number; done: () => void }> = [];

  constructor(options: FakeMicrophoneOptions = {}) {
    releaseBeforeExit(this.#source!);
    this.#emulatorUrl = options.emulatorUrl?.replace(/\/+$/, '');
    this.#sendSilence = options.sendSilence ?? true;
    const tailMs = options.silenceTailMs ?? SILENCE_TAIL_MS;
    if (!(tailMs >= 0) || !Number.isFinite(tailMs)) throw new RangeError(`silenceTailMs must be a finite number >= 0, got ${tailMs}`);
    this.#tailFrames = Math.ceil(tailMs / 10);
    track(this, true);
  }

  /** The `microphone` option of `VoiceSession`: each call opens a new track on the same source. */
  readonly open = async (deviceId?: string): Promise<FakeMicrophoneStream> => {
    if (!this.#source) throw new Error('FakeMicrophone is closed: make a new one');
    this.opened.push(deviceId);
    const stream = new wrtc.MediaStream([this.#source.createTrack()]) as unknown as FakeMicrophoneStream;
    this.streams.push(stream);
    return stream;
  };

  /**
   * Speaks mono PCM16 samples (resampled to 48 kHz) after what is already queued; resolves once the
   * last frame went out.
   */
  play(samples: Int16Array, sampleRate = RATE): Promise<void> {
    const pcm = resample(samples, sampleRate, RATE);
    const frames: Array<{ frame: Int16Array; done?: () => void }> = [];
    for (let i = 0; i < pcm.length; i += FRAME) {
      const frame = new Int16Array(FRAME);
      frame.set(pcm.subarray(i, Math.min(i + FRAME, pcm.length)));
      frames.push({ frame });
    }
    // Closed: nothing more will be spoken, so there is nothing to wait for.
    if (!frames.length || this.#closed || !this.#source) return Promise.resolve();
    this.#queue.push(...frames);
    const played = new Promise<void>((resolve) => (frames[frames.length - 1]!.done = resolve));
    this.#lastPlay = Promise.all([this.#lastPlay, played]);
    return played;
  }

  /**
   * Speaks a PCM16 WAV file (any rate, mono or stereo); resolves once the last frame went out.
   * With `transcript`, first queues those words on the emulator (after the clips already queued
   * here have been spoken) and rejects with {@link FakeMicrophoneError} when that fails.
   */
  playWav(bytes: Uint8Array, options: PlayWavOptions = {}): Promise<void> {
    const wav = decodeWav(bytes);
    const samples = toMono(wav.samples, wav.channels);
    if (options.transcript === undefined) return this.play(samples, wav.sampleRate);
    const { transcript, sessionId } = options;
    const run = this.#lastPlay.then(async () => {
      if (this.#closed) return;
      await this.#script(transcript, sessionId);
      await this.play(samples, wav.sampleRate);
    });
    this.#lastPlay = run.catch(() => {});
    return run;
  }

  /**
   * Plays a noise over whatever the microphone sends from now on (speech or silence): a lab fixture
   * by name (`kb-voice-emulator/lab` {@link NOISE_FIXTURES}: beeps, cough, keyboard, fan, music,
   * babble, cafe...) or mono samples. Resolves once it has played.
   */
  noise(noise: NoiseName | Int16Array, options: NoiseOverlayOptions = {}): Promise<void> {
    const pcm = noisePcm(noise, options);
    if (!pcm.length || this.#closed || !this.#source) return Promise.resolve();
    return new Promise((done) => this.#overlays.push({ samples: pcm, offset: 0, done }));
  }

  /**
   * Speaks `text` with the emulator's Flite voice (English), optionally over a noise at `snrDb`;
   * with `emulatorUrl`, the emulator is told the words (as {@link playWav}'s `transcript`).
   * Resolves once the last frame went out.
   */
  async say(text: string, options: SayOptions = {}): Promise<void> {
    const spoken = await synthesizeFlite(text, options.voice ? { voice: options.voice } : {});
    let speech = resample(spoken.samples, spoken.sampleRate, NOISE_SAMPLE_RATE);
    if (options.noise !== undefined) {
      const noise = typeof options.noise === 'string'
        ? generateNoise(options.noise, { durationMs: Math.max(1, (speech.length / NOISE_SAMPLE_RATE) * 1000) })
        : resample(options.noise, options.noiseSampleRate ?? NOISE_SAMPLE_RATE, NOISE_SAMPLE_RATE);
      speech = mixAtSnr(speech, noise, options.snrDb ?? 10);
    }
    if (!this.#emulatorUrl) return this.play(speech, NOISE_SAMPLE_RATE);
    const run = this.#lastPlay.then(async () => {
      if (this.#closed) return;
      await this.#script(text, options.sessionId);
      await this.play(speech, NOISE_SAMPLE_RATE);
    });
    this.#lastPlay = run.catch(() => {});
    return run;
  }

  async #script(transcript: string, sessionId: string | undefined): Promise<void> {
    if (!this.#emulatorUrl) throw new FakeMicrophoneError('playWav(..., { transcript }) needs new FakeMicrophone({ emulatorUrl })');
    let res: Response;
    try {
      res = await fetch(`${this.#emulatorUrl}/_emulator/script`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...(sessionId ? { session_id: sessionId } : {}), utterances: [transcript] }),
      });
    } catch (err) {
      throw new FakeMicrophoneError(`could not reach the emulator at ${this.#emulatorUrl}`, { cause: err });
    }
    if (!res.ok) throw new FakeMicrophoneError(`PUT /_emulator/script answered ${res.status}: ${await res.text()}`);
  }

  /** Frames (10 ms each) handed to the track so far, speech and silence. */
  get framesSent(): number {
    return this.#framesSent;
  }

  /** Stops the tracks and the pacing. */
  close(): void {
    this.#closed = true;
    track(this, false);
    for (const s of this.streams) for (const t of (s as { getTracks(): Array<{ stop(): void }> }).getTracks()) t.stop();
    // The source must be collectable before the process exits (realtime/wrtc-exit.ts).
    this.#source = undefined;
    // Pending play() and noise() calls resolve: nothing more will be sent.
    for (const item of this.#queue.splice(0)) item.done?.();
    for (const overlay of this.#overlays.splice(0)) overlay.done();
  }

  /** `frame` with the next 10 ms of every playing noise added (a new frame; finished noises resolve). */
  #mixOverlays(frame: Int16Array): Int16Array {
    const out = Int16Array.from(frame);
    for (const overlay of this.#overlays) {
      const part = overlay.samples.subarray(overlay.offset, overlay.offset + FRAME);
      for (let i = 0; i < part.length; i++) out[i] = Math.max(-32768, Math.min(32767, out[i]! + part[i]!));
      overlay.offset += FRAME;
    }
    this.#overlays = this.#overlays.filter((overlay) => {
      if (overlay.offset < overlay.samples.length) return true;
      overlay.done();
      return false;
    });
    return out;
  }

  /** @internal Sends the frames that are due. */
  pump(): void {
    const source = this.#source;
    if (!source) return;
    const due = Math.floor((performance.now() - this.#startedAt) / 10);
    if (due - this.#sent > MAX_LAG_FRAMES) this.#sent = due - MAX_LAG_FRAMES;
    while (this.#sent < due) {
      this.#sent++;
      const item = this.#queue.shift();
      if (item || this.#overlays.length) this.#tailLeft = this.#tailFrames;
      else if (!this.#sendSilence) {
        // Muted between clips: nothing goes out, and the clock moves on (no burst when a clip starts).
        if (this.#tailLeft === 0) continue;
        this.#tailLeft--;
      }
      const samples = this.#overlays.length ? this.#mixOverlays(item?.frame ?? SILENT_FRAME) : item?.frame ?? SILENT_FRAME;
      source.onData({ samples, sampleRate: RATE, bitsPerSample: 16, channelCount: 1, numberOfFrames: FRAME });
      this.#framesSent++;
      item?.done?.();
    }
  }
}
