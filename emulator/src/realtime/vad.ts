import loadFvad, { type FvadModule } from '@echogarden/fvad-wasm';
import { CallerVoice, type CallerFrame } from './caller-voice.js';
import type { EchoGuard } from './echo-guard.js';
import { concat } from './pcm.js';
import { SPEECH_ONSET, SpeechStretch } from './speech-stretch.js';
import type { VoiceLikenessThresholds } from './voice-likeness.js';

/**
 * Speech-activity detection for the caller's audio: the WebRTC VAD (libfvad compiled to WASM) labels
 * each frame voiced or not (the answer's own echo excluded, ./echo-guard.ts), and hangover smoothing
 * turns those labels into utterances: one opens after `startMs` of consecutive voiced frames and
 * closes `stopMs` after its last frame of speech (not after libfvad's own overhang of voiced
 * silence), so short clicks do not open a turn and short pauses between words do not end it;
 * push-to-talk's commit closes it at once ({@link VoiceActivityDetector.commit}). libfvad also
 * calls beeps, hum, music and fans voiced, so an utterance is only told (`start`, then `stop`) once
 * it holds speech — voice-like frames whose pitch moves (./caller-voice.ts, ./speech-stretch.ts);
 * one that never does is dropped unheard. Each frame's verdict also goes to `onFrame` (the barge-in
 * judge).
 */

/** Rate the detector works at; callers resample to it. */
export const VAD_SAMPLE_RATE = 16000;

export interface VadOptions {
  /** libfvad aggressiveness 0..3 (higher: fewer false positives). Default 2. */
  mode?: 0 | 1 | 2 | 3;
  /** Frame length given to libfvad. Default 10. */
  frameMs?: 10 | 20 | 30;
  /** Consecutive voiced time that starts speech. Default 100. */
  startMs?: number;
  /**
   * Time after the last speech frame (voice, or a voiced sound near voice above the background)
   * that stops speech. Default 600.
   */
  stopMs?: number;
  /** Audio kept from before the detected start, so the utterance recording is not clipped. Default 300. */
  preRollMs?: number;
  /** An utterance longer than this is cut (a stuck-open microphone must not grow one forever). Default 30000. */
  maxSpeechMs?: number;
  /**
   * Manual turns (the caller signaled push-to-talk): silence never ends an utterance, only a
   * {@link VoiceActivityDetector.commit} (the release) does, or the utterance reaching `maxSpeechMs`
   * pauses included (a stuck talk button). Default false: `stopMs` of silence ends it.
   */
  manualTurns?: boolean;
  /** The emulator's own output, to tell its echo from the caller. */
  echo?: EchoGuard;
  /** Every frame's verdict, in order (the barge-in judge). */
  onFrame?(frame: CallerFrame): void;
  /** The clock (ms) that tells a commit's queued frames from the microphone's pace; default `performance.now`. */
  clock?: () => number;
}

/** Voiced frames this close (ms) after a voice frame keep an utterance open (consonants, word ends). */
const VOICE_HOLD_MS = 200;
/**
 * Such a voiced frame must also stand this far (dB) above the background floor: consonants over a quiet room do, while
 * a fan's or the near-silence's frame-to-frame wander (up to ~10 dB over the floor, the quietest
 * frame) does not.
 */
const HOLD_ABOVE_FLOOR_DB = 12;
/**
 * ...and be within this much (dB) of the utterance's loudest voice frame: consonants are 20–30 dB
 * under the vowels, the near-silence after speech (where libfvad's own hangover still says voiced
 * for ~90 ms) 60 dB and more.
 */
const SPEECH_RANGE_DB = 40;

/**
 * Manual turns: a commit ends the utterance at once when this much non-speech already followed it
 * (the microphone closed at release, and a client commits after its last packets left). Less means
 * the hold's last frames are still queued behind the commit (the event loop stalled, then delivers
 * the audio and the data channel's messages in either order): the commit then waits for them.
 */
const TAIL_SILENCE_MS = 40;
/**
 * ...the queued frames arrive faster than they were spoken once the loop runs again, so the audio
 * received since the commit runs ahead of the clock, further with every push. Once it has stopped
 * getting further ahead for this long (ms of the clock), frames come at the microphone's own pace:
 * the backlog is in and the utterance ends. (A garbage collection in the middle of the backlog
 * pauses it for less; a frame handled slowly on a busy machine only slows the backlog down.)
 */
const DRAINED_AFTER_MS = 50;
/** ...where getting further ahead by less than this (ms) is the microphone's jitter, not a backlog. */
const JITTER_MS = 2;

export type VadEvent =
  | { type: 'start' }
  | {
      type: 'stop';
      /** Speech time from the first voiced frame to the last speech frame (hangover excluded). */
      speechMs: number;
      /** The utterance at {@link VAD_SAMPLE_RATE}: pre-roll, speech, and up to 100 ms after it. */
      audio: Int16Array;
      /** Stream time (ms of audio fed to this detector before it) of the utterance's first sample. */
      startMs: number;
      /** How much of `audio` (ms) came from the caller's pre-connect audio (set by the connection). */
      preConnectMs?: number;
    };

let modulePromise: Promise<FvadModule> | undefined;
/** Loads the WASM once per process; detectors share it. */
function fvadModule(): Promise<FvadModule> {
  modulePromise ??= loadFvad();
  return modulePromise;
}

/** Streaming detector over 16 kHz mono PCM16. Call {@link close} to free its native state. */
export class VoiceActivityDetector {
  readonly #mod: FvadModule;
  readonly #inst: number;
  readonly #buf: number;
  readonly #frame: number;
  readonly #frameMs: number;
  readonly #opts: Required<Omit<VadOptions, 'mode' | 'frameMs' | 'echo' | 'onFrame' | 'clock'>>;
  readonly #voice: CallerVoice;
  readonly #onFrame: ((frame: CallerFrame) => void) | undefined;
  readonly #clock: () => number;
  /** Whether the current utterance holds speech (told as `start`). */
  #told = false;
  readonly #stretch = new SpeechStretch(30);
  /** Audio time (ms) of the frames processed. */
  #atMs = 0;
  #carry = new Int16Array(0);
  #speaking = false;
  #voicedRunMs = 0;
  #unvoicedRunMs = 0;
  /** Recent frames while idle (pre-roll plus the voiced run being confirmed). */
  #recent: Int16Array[] = [];
  /** Frames of the current utterance. */
  #utterance: Int16Array[] = [];
  #speechMs = 0;
  /** Stream time of the current utterance's first frame (pre-roll included). */
  #startMs = 0;
  /** Level (dBFS) of the loudest voice frame of the utterance (or of the voiced run being confirmed). */
  #peakDbfs = -Infinity;
  /**
   * A manual turn's commit waiting for the hold's last frames: when it came (clock ms, and audio ms
   * received by then), how far the audio received since ran ahead of the clock at most, and when
   * it last got further ahead. However long the backlog (a stall, or live audio held for pre-connect
   * audio that never came), the utterance stays within `maxSpeechMs`.
   */
  #committing: { at: number; atMs: number; lead: number; leadAt: number } | undefined;
  #closed = false;

  private constructor(mod: FvadModule, options: VadOptions) {
    this.#mod = mod;
    this.#frameMs = options.frameMs ?? 10;
    this.#frame = (VAD_SAMPLE_RATE * this.#frameMs) / 1000;
    this.#opts = {
      startMs: options.startMs ?? 100,
      stopMs: options.stopMs ?? 600,
      preRollMs: options.preRollMs ?? 300,
      maxSpeechMs: options.maxSpeechMs ?? 30000,
      manualTurns: options.manualTurns ?? false,
    };
    this.#voice = new CallerVoice(options.echo ? { echo: options.echo } : {});
    this.#onFrame = options.onFrame;
    this.#clock = options.clock ?? (() => performance.now());
    this.#inst = mod._fvad_new();
    if (!this.#inst) throw new Error('libfvad: out of memory');
    if (mod._fvad_set_mode(this.#inst, options.mode ?? 2) !== 0) throw new RangeError('libfvad: invalid mode');
    if (mod._fvad_set_sample_rate(this.#inst, VAD_SAMPLE_RATE) !== 0) throw new RangeError('libfvad: invalid rate');
    this.#buf = mod._malloc(this.#frame * 2);
  }

  static async create(options: VadOptions = {}): Promise<VoiceActivityDetector> {
    return new VoiceActivityDetector(await fvadModule(), options);
  }

  /** True between a `start` and the following `stop`. */
  get speaking(): boolean {
    return this.#speaking && this.#told;
  }

  /**
   * Changes the segmentation and voice-likeness settings mid-call (OpenAI `session.update`):
   * `stopMs`, `preRollMs` and the thresholds; an utterance in progress continues under them.
   */
  configure(options: { stopMs?: number; preRollMs?: number; thresholds?: VoiceLikenessThresholds }): void {
    if (options.stopMs !== undefined) this.#opts.stopMs = options.stopMs;
    if (options.preRollMs !== undefined) this.#opts.preRollMs = options.preRollMs;
    if ('thresholds' in options) this.#voice.configure(options.thresholds);
  }

  /** Classifies one frame with libfvad. */
  #isVoiced(frame: Int16Array): boolean {
    // HEAP16 is replaced when WASM memory grows, so it is read on every call.
    this.#mod.HEAP16.set(frame, this.#buf >> 1);
    const r = this.#mod._fvad_process(this.#inst, this.#buf, frame.length);
    if (r < 0) throw new Error('libfvad: invalid frame length');
    return r === 1;
  }

  /**
   * Feeds 16 kHz mono samples of any length, heard at `now` (ms, the echo reference's clock;
   * default `performance.now()`); returns the events they complete, in order.
   */
  push(samples: Int16Array, now = performance.now()): VadEvent[] {
    if (this.#closed) return [];
    const events: VadEvent[] = [];
    const committing = this.#committing;
    if (committing) {
      const t = this.#clock();
      // How far the audio received since the commit (this push's included) runs ahead of the clock.
      const lead = this.#atMs + (samples.length * 1000) / VAD_SAMPLE_RATE - committing.atMs - (t - committing.at);
      if (lead > committing.lead + JITTER_MS) {
        committing.lead = lead;
        committing.leadAt = t;
      } else if (t - committing.leadAt >= DRAINED_AFTER_MS) {
        this.#endCommitted(events);
      }
    }
    const all = this.#carry.length ? concat([this.#carry, samples]) : samples;
    let offset = 0;
    for (; offset + this.#frame <= all.length; offset += this.#frame) {
      const frame = all.slice(offset, offset + this.#frame);
      this.#atMs += this.#frameMs;
      const verdict = this.#voice.judge(frame, this.#isVoiced(frame), this.#atMs, now);
      this.#onFrame?.(verdict);
      const event = this.#step(frame, verdict);
      if (event) events.push(event);
    }
    this.#carry = all.slice(offset);
    return events;
  }

  #step(frame: Int16Array, verdict: CallerFrame): VadEvent | undefined {
    const ms = this.#frameMs;
    this.#stretch.push(verdict);
    if (verdict.voice) this.#peakDbfs = Math.max(this.#peakDbfs, verdict.dbfs);
    if (!this.#speaking) {
      this.#recent.push(frame);
      const keep = Math.ceil((this.#opts.preRollMs + this.#opts.startMs) / ms) + 1;
      if (this.#recent.length > keep) this.#recent.shift();
      this.#voicedRunMs = verdict.voiced ? this.#voicedRunMs + ms : 0;
      if (!this.#voicedRunMs) this.#peakDbfs = -Infinity;
      if (this.#voicedRunMs < this.#opts.startMs) return undefined;
      this.#speaking = true;
      this.#told = false;
      this.#utterance = this.#recent;
      this.#startMs = this.#atMs - this.#recent.length * ms;
      this.#recent = [];
      this.#speechMs = this.#voicedRunMs;
      this.#unvoicedRunMs = 0;
    } else {
      this.#utterance.push(frame);
      // The hangover counts from the last frame that is really speech: voice, or a voiced sound near
      // voice (consonants, word ends) that stands clear of the background and within SPEECH_RANGE_DB
      // of the voice. libfvad's own hangover keeps calling ~90 ms of the silence after speech voiced,
      // and a fan or a hum is voiced to it too: neither holds an utterance open.
      const speech = verdict.voice || (
        verdict.voiced && verdict.dbfs >= verdict.floorDbfs + HOLD_ABOVE_FLOOR_DB && verdict.dbfs >= this.#peakDbfs - SPEECH_RANGE_DB &&
        verdict.atMs - this.#stretch.lastVoiceAt <= VOICE_HOLD_MS
      );
      if (speech) {
        this.#speechMs += this.#unvoicedRunMs + ms;
        this.#unvoicedRunMs = 0;
      } else {
        this.#unvoicedRunMs += ms;
      }
    }
    if (!this.#told && this.#stretch.speechLike(SPEECH_ONSET.voiceFrames, SPEECH_ONSET.withinFrames)) {
      this.#told = true;
      return { type: 'start' };
    }
    const { maxSpeechMs, manualTurns } = this.#opts;
    // speechMs counts the pauses between speech; with manual turns the trailing pause counts too.
    const tooLong = this.#speechMs >= maxSpeechMs || (manualTurns && this.#speechMs + this.#unvoicedRunMs >= maxSpeechMs);
    // Only a told utterance is held open: a sound that never became speech still ends (unheard) after stopMs.
    if (((manualTurns && this.#told) || this.#unvoicedRunMs < this.#opts.stopMs) && !tooLong) return undefined;
    return this.#end();
  }

  /**
   * Ends the utterance in progress now (push-to-talk: the caller released talk), as the hangover
   * would have: its `stop` with the audio heard so far, or nothing when none is open or it never
   * held speech (dropped unheard, as at a hangover's end). Samples short of a frame are not in it.
   * With manual turns, a commit that comes before the hold's trailing silence (its frames queued
   * behind it, {@link TAIL_SILENCE_MS}; all of them when none was heard yet) returns nothing yet:
   * the pushes that bring those frames join them to the utterance, and the first push after the
   * audio stopped running ahead of the clock for {@link DRAINED_AFTER_MS} tells its `stop`.
   */
  commit(): VadEvent | undefined {
    if (this.#closed || this.#committing) return undefined;
    if (this.#opts.manualTurns && (!this.#speaking || this.#unvoicedRunMs < TAIL_SILENCE_MS)) {
      // The hold's frames may still be queued: they join this utterance, which `push` then ends.
      const at = this.#clock();
      this.#committing = { at, atMs: this.#atMs, lead: 0, leadAt: at };
      return undefined;
    }
    return this.#speaking ? this.#end() : undefined;
  }

  /** Ends a commit's utterance once its late frames are in (`push`'s events get its `stop`). */
  #endCommitted(events: VadEvent[]): void {
    this.#committing = undefined;
    if (!this.#speaking) return;
    const event = this.#end();
    if (event) events.push(event);
  }

  #end(): VadEvent | undefined {
    this.#committing = undefined;
    const told = this.#told;
    // Keep at most 100 ms of the trailing silence in the recording.
    const dropFrames = Math.max(0, Math.floor((this.#unvoicedRunMs - 100) / this.#frameMs));
    const frames = this.#utterance.slice(0, this.#utterance.length - dropFrames);
    this.#speaking = false;
    this.#told = false;
    this.#utterance = [];
    this.#voicedRunMs = 0;
    this.#unvoicedRunMs = 0;
    this.#peakDbfs = -Infinity;
    // An utterance that never held speech (a beep, a cough, a fan) is dropped unheard.
    return told ? { type: 'stop', speechMs: this.#speechMs, audio: concat(frames), startMs: this.#startMs } : undefined;
  }

  /** Frees the native detector. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#mod._free(this.#buf);
    this.#mod._fvad_free(this.#inst);
  }
}
