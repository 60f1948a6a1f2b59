import type { Reference } from 'kb-voice/schemas';
import { answerFromDataset, estimateTokens } from '../knowledge.js';
import type { Store } from '../store.js';
import type { Pcm } from './pcm.js';
import { findEspeak, synthesizeEspeak } from './tts-espeak.js';
import { fliteSpeaks, sharedFlitePool, synthesizeFlite, type FliteVoice } from './tts-flite.js';
import { synthesizeFormant } from './tts-formant.js';

/**
 * What listens, thinks and speaks in the emulator's realtime sessions. The defaults work offline:
 * no recognizer (spoken questions become a placeholder that states their duration), answers from
 * the robot's dataset, and speech from Flite for English (a WASI build, run in worker threads),
 * espeak-ng for other languages when it is on PATH, or a built-in formant voice otherwise. Plug
 * real engines in with `createRealtimeService(ctx, { brain: { recognize } })`.
 */
export interface Brain {
  /**
   * Speech to text. Resolves the words, or null when this brain has no recognizer (the turn then
   * records a placeholder such as `[speech 1.8 s — no recognizer configured]`, never invented words).
   */
  recognize(input: RecognizeInput): Promise<string | null>;
  /** Answers a question (typed, recognized, or a placeholder when `placeholder` is true). */
  answer(input: AnswerInput): Promise<BrainAnswer>;
  /** Text to mono PCM16 at any rate (the peer resamples to 48 kHz). */
  synthesize(input: SynthesizeInput): Promise<Pcm>;
}

export interface RecognizeInput {
  /** The utterance, mono. */
  audio: Pcm;
  language: string;
  durationMs: number;
}

export interface AnswerInput {
  robotId: string;
  sessionId: string;
  question: string;
  language: string;
  /** True when `question` is a placeholder for unrecognized speech, not the user's words. */
  placeholder: boolean;
  input: 'voice' | 'text';
  signal: AbortSignal;
}

export interface BrainAnswer {
  answer: string;
  references?: Reference[];
  /** Prompt tokens (question plus context); estimated as characters / 4 when absent. */
  inputTokens?: number;
  /** Completion tokens; estimated as characters / 4 when absent. */
  outputTokens?: number;
}

export interface SynthesizeInput {
  /** One sentence of the answer (answers are spoken sentence by sentence). */
  text: string;
  language: string;
  signal: AbortSignal;
  /**
   * True for the first sentence of an answer, which the caller is waiting to hear; false for the
   * next ones, which have ~1.5 s of audio still playing ahead of them. A synthesizer with a queue
   * may serve urgent ones first.
   */
  urgent?: boolean;
}

/**
 * Which voice the default `synthesize` uses, by session language:
 * - `auto` (default): Flite for English; other languages espeak-ng when on PATH, else built-in.
 * - `flite`: Flite for English, built-in for other languages (never depends on PATH).
 * - `espeak`: espeak-ng for every language (fails when it is not on PATH).
 * - `builtin`: the built-in formant voice (speech-like babble, no words) for every language.
 */
export type VoiceChoice = 'auto' | 'flite' | 'espeak' | 'builtin';
export const VOICE_CHOICES: readonly VoiceChoice[] = ['auto', 'flite', 'espeak', 'builtin'];

export interface DefaultBrainOptions {
  store: Store;
  voice?: VoiceChoice;
  /**
   * Flite voice for English. Default `kal16` (16 kHz diphone voice): ~5 ms per sentence in a worker,
   * so Flite costs the emulator no capacity (bench/capacity.mjs). `slt` (16 kHz, statistical) sounds
   * more natural but takes ~40 ms per sentence and about three times the CPU.
   */
  fliteVoice?: FliteVoice;
}

/** The default brain, plus a warm-up of the synthesizer a session language will use. */
export interface DefaultBrain extends Brain {
  /** Loads and warms the synthesizer `language` will use (Flite's workers), so a first answer does not pay it. */
  prepare(language: string): Promise<void>;
}

/** Placeholder recorded for speech no recognizer turned into words. */
export function speechPlaceholder(durationMs: number): string {
  return `[speech ${(durationMs / 1000).toFixed(1)} s — no recognizer configured]`;
}

const CJK = /[\u3040-\u30ff\u3400-\u9fff]/;

/**
 * The honest reply to unrecognized speech: says it could not understand and asks for a typed
 * question about what the dataset covers (the title of the robot's first dataset file in the
 * session language, else the robot's name). Deterministic and short.
 */
export function placeholderAnswer(store: Store, robotId: string, language: string): BrainAnswer {
  const ja = language.toLowerCase().startsWith('ja');
  const robot = store.robots.get(robotId);
  const titles = robot
    ? store.files
        .find((f) => f.dataset_id === robot.dataset_id && f.status !== 'failed' && f.content.trim() !== '')
        .sort((a, b) => a.id.localeCompare(b.id))
        .map((f) => /^#+\s*(.+)$/m.exec(f.content)?.[1]?.trim() ?? f.name)
    : [];
  const topic = titles.find((t) => CJK.test(t) === ja) ?? titles[0] ?? robot?.name;
  const answer = ja
    ? `音声認識が設定されていないため、聞き取れませんでした。${topic ? `${topic}について、` : ''}文字で質問してください。`
    : `No speech recognizer is configured, so I could not understand that. Please type your question${topic ? ` about ${topic}` : ''}.`;
  return { answer, references: [], inputTokens: 0, outputTokens: estimateTokens(answer) };
}

/** The offline default brain. */
export function createDefaultBrain(options: DefaultBrainOptions): DefaultBrain {
  const { store } = options;
  const voice = options.voice ?? 'auto';
  const fliteVoice = options.fliteVoice ?? 'kal16';
  const usesFlite = (language: string) => (voice === 'auto' || voice === 'flite') && fliteSpeaks(language);
  let espeak: string | null | undefined;
  return {
    async prepare(language) {
      if (usesFlite(language)) await (await sharedFlitePool()).warm(fliteVoice);
    },
    async recognize() {
      return null;
    },
    async answer(input) {
      if (input.placeholder) return placeholderAnswer(store, input.robotId, input.language);
      return answerFromDataset(store, input.robotId, input.question, input.language);
    },
    async synthesize(input) {
      if (usesFlite(input.language)) {
        try {
          return await synthesizeFlite(input.text, { voice: fliteVoice, signal: input.signal, urgent: input.urgent ?? true });
        } catch (err) {
          if (voice === 'flite' || input.signal.aborted) throw err;
          // auto: a missing or broken Flite falls back to the voices below.
        }
      }
      if (voice === 'auto' || voice === 'espeak') {
        espeak ??= findEspeak();
        if (espeak) {
          try {
            return await synthesizeEspeak(espeak, input.text, input.language);
          } catch (err) {
            if (voice === 'espeak') throw err;
            // auto: an unknown voice or a broken install falls back to the built-in voice.
          }
        } else if (voice === 'espeak') {
          throw new Error('espeak-ng was requested but is not on PATH');
        }
      }
      return synthesizeFormant(input.text);
    },
  };
}
