import { randomUUID } from 'node:crypto';
import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Reference } from 'kb-voice/schemas';
import type { EmulatorContext } from '../context.js';
import { estimateTokens } from '../knowledge.js';
import { audioTokens } from '../pricing.js';
import type { AudioRecord, MessageRecord, SessionRecord, UsageRecord } from '../store.js';
import { encodeWav } from '../wav.js';

/**
 * Writes what realtime sessions produce into the emulator's store: the session record, one message
 * and one usage record per turn, and one WAV file plus {@link AudioRecord} per user utterance and
 * per assistant answer. Nothing is written for a session that is being deleted (E15).
 *
 * Units: `first_response_time` of a message is in **seconds** (a number, e.g. 0.42), like the
 * service's message field; the data channel's `first_response_ms` carries the same value in ms.
 * Audio tokens follow the measured durations at 10 tokens/s heard and 20 tokens/s spoken
 * (pricing.ts); text tokens are characters / 4.
 */
export class Recorder {
  readonly #ctx: EmulatorContext;

  constructor(ctx: EmulatorContext) {
    this.#ctx = ctx;
  }

  #live(sessionId: string): SessionRecord | undefined {
    const s = this.#ctx.store.sessions.get(sessionId);
    return s && !s.deleting ? s : undefined;
  }

  /** Creates the session record when it does not exist yet. */
  openSession(init: { id: string; robotId: string; language: string; userIdentifier: string | null }): SessionRecord {
    const existing = this.#ctx.store.sessions.get(init.id);
    if (existing) return existing;
    return this.#ctx.store.sessions.put({
      id: init.id,
      robot_id: init.robotId,
      user_identifier: init.userIdentifier,
      language: init.language,
      title: '',
      created_at: new Date().toISOString(),
      duration_ms: 0,
    });
  }

  /** Adds the wall-clock time of one connection to the session's duration. */
  addDuration(sessionId: string, ms: number, ended: boolean): void {
    const s = this.#live(sessionId);
    if (!s) return;
    this.#ctx.store.sessions.patch(sessionId, {
      duration_ms: Math.round(s.duration_ms + ms),
      ...(ended ? { ended_at: new Date().toISOString() } : {}),
    });
  }

  /** Stores one recorded segment as a WAV file; returns its record, or undefined for a deleted session. */
  async recordAudio(sessionId: string, role: 'user' | 'assistant', samples: Int16Array, sampleRate: number): Promise<AudioRecord | undefined> {
    const s = this.#live(sessionId);
    if (!s || samples.length === 0) return undefined;
    const { store, audioDir } = this.#ctx;
    // Reserve the index synchronously so concurrent writers of one session never share one.
    const previous = store.audio.where('session_id', sessionId);
    const segmentIndex = previous.reduce((max, a) => Math.max(max, a.segment_index), -1) + 1;
    const id = randomUUID();
    const file = join(audioDir, `${id}.wav`);
    const record: AudioRecord = {
      id,
      robot_id: s.robot_id,
      session_id: sessionId,
      segment_index: segmentIndex,
      role,
      file,
      duration_ms: Math.round((samples.length / sampleRate) * 1000),
      created_at: new Date().toISOString(),
    };
    store.audio.put(record);
    try {
      await mkdir(audioDir, { recursive: true });
      await writeFile(file, encodeWav(samples, sampleRate));
    } catch (err) {
      store.audio.delete(id);
      throw err;
    }
    return record;
  }

  /** Records a finished (or interrupted) turn as a message plus its usage; returns the message id. */
  recordTurn(turn: RecordedTurn): MessageRecord | undefined {
    const s = this.#live(turn.sessionId);
    if (!s) return undefined;
    const { store } = this.#ctx;
    const robot = store.robots.get(s.robot_id);
    const id = randomUUID();
    const now = new Date().toISOString();
    const usage: UsageRecord = {
      id: randomUUID(),
      robot_id: s.robot_id,
      session_id: s.id,
      message_id: id,
      created_at: now,
      input_text_tokens: turn.inputTextTokens ?? estimateTokens(turn.input === 'text' ? turn.question : ''),
      input_audio_tokens: audioTokens(turn.inputAudioMs, 'input'),
      cached_tokens: 0,
      output_text_tokens: turn.outputTextTokens ?? estimateTokens(turn.answer),
      output_audio_tokens: audioTokens(turn.outputAudioMs, 'output'),
      input_audio_ms: Math.round(turn.inputAudioMs),
      output_audio_ms: Math.round(turn.outputAudioMs),
    };
    const totalTokens = usage.input_text_tokens + usage.input_audio_tokens + usage.cached_tokens + usage.output_text_tokens + usage.output_audio_tokens;
    const history = store.messages.where('session_id', s.id).length;
    const message: MessageRecord = {
      id,
      robot_id: s.robot_id,
      session_id: s.id,
      created_at: now,
      question: turn.question,
      answer: turn.answer,
      user_id: s.user_identifier,
      total_tokens: totalTokens,
      history_conversation_count: history,
      first_response_time: turn.firstResponseMs === null ? null : Math.round(turn.firstResponseMs) / 1000,
      rating: null,
      feedback_content: null,
      reference_list: turn.references,
      reference_indexes: turn.references.map((_, i) => i),
      is_test: false,
      comes_from: 'realtime',
      llm_can_answer: turn.references.length > 0,
      title: s.title || turn.question.slice(0, 80),
      model: robot?.model ?? null,
      // turn_id lets a restarted emulator continue the session's numbering from the store.
      question_metadata: {
        input: turn.input, interrupted: turn.interrupted, agent_build_ms: turn.agentBuildMs, turn_id: turn.turnId,
        ...(turn.scripted ? { scripted: true } : {}),
      },
      status: 'finished',
      default_dataset_id: robot?.dataset_id ?? null,
      tags: [],
      session_message_metadata: [],
      citation: [],
    };
    store.messages.put(message);
    store.usage.put(usage);
    if (!s.title) store.sessions.patch(s.id, { title: turn.question.slice(0, 80) });
    return message;
  }
}

export interface RecordedTurn {
  sessionId: string;
  /** The turn's number on the data channel. */
  turnId: number;
  input: 'voice' | 'text';
  question: string;
  answer: string;
  references: Reference[];
  /** Null when no audio of the answer was sent. */
  firstResponseMs: number | null;
  agentBuildMs: number;
  inputAudioMs: number;
  outputAudioMs: number;
  inputTextTokens?: number;
  outputTextTokens?: number;
  interrupted: boolean;
  /** The question's words came from QA's script rather than a recognizer. */
  scripted?: boolean;
}
