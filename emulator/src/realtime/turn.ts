import type { AgentBuilder } from '../context.js';
import type { PlaybackHooks, Playback } from './audio-out.js';
import { speechPlaceholder, type Brain } from './brain.js';
import type { ActiveTurn } from './connection.js';
import { resample } from './pcm.js';
import type { OutgoingEvent } from './protocol.js';
import type { Recorder } from './recorder.js';

/**
 * One conversational turn, from the end of the user's input to `turn.completed`:
 * transcript of the question → agent build (first task of a cold robot) → answer → speech, with
 * the answer's words streamed as `transcript.delta` in step with the audio actually sent, then the
 * recording of message, usage and audio. Barge-in or `response.interrupt` aborts the turn: speech
 * stops (`interrupted`) or never starts, and the turn is recorded with `interrupted: true`.
 */

export type TurnInput =
  | { kind: 'voice'; turnId: number; audio: Int16Array; sampleRate: number; speechMs: number; endOfInput: number }
  | { kind: 'text'; turnId: number; text: string; endOfInput: number };

export interface TurnDeps {
  brain: Brain;
  recorder: Recorder;
  agents: AgentBuilder;
  robotId: string;
  sessionId: string;
  language: string;
  outputSampleRate: number;
  send(event: OutgoingEvent): void;
  isOpen(): boolean;
  play(samples: Int16Array, hooks: PlaybackHooks): Playback;
}

/** Splits an answer into the pieces sent as deltas; joined, they give the answer back exactly. */
export function deltaPieces(text: string): string[] {
  return text.match(/[\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]|[^\s\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]+\s*|\s+/gu) ?? [];
}

export async function runTurn(input: TurnInput, turn: ActiveTurn, deps: TurnDeps): Promise<void> {
  const { brain, recorder, send } = deps;
  const signal = turn.abort.signal;
  const turnId = input.turnId;

  // 1. The question.
  let question: string;
  let placeholder = false;
  if (input.kind === 'voice') {
    const userAudio = recorder.recordAudio(deps.sessionId, 'user', input.audio, input.sampleRate);
    const words = await brain.recognize({
      audio: { samples: input.audio, sampleRate: input.sampleRate },
      language: deps.language,
      durationMs: input.speechMs,
    });
    placeholder = words === null || words.trim() === '';
    question = placeholder ? speechPlaceholder(input.speechMs) : words!.trim();
    await userAudio;
  } else {
    question = input.text;
  }
  send({ type: 'transcript.final', turn_id: turnId, role: 'user', text: question, ...(placeholder ? { placeholder: true } : {}) });

  // 2. The first task of a cold robot pays the agent build.
  const { paidMs } = await deps.agents.ensureBuilt(deps.robotId);

  // 3. The answer (computed even when interrupted, so the turn is recorded with it).
  const answer = await brain.answer({
    robotId: deps.robotId,
    sessionId: deps.sessionId,
    question,
    language: deps.language,
    placeholder,
    input: input.kind,
    signal,
  });

  // 4. Speech.
  let firstFrameAt: number | null = null;
  let outputMs = 0;
  let reason: 'completed' | 'interrupted' | 'ended' | null = null;
  if (!signal.aborted && deps.isOpen()) {
    const speech = await brain.synthesize({ text: answer.answer, language: deps.language, signal });
    if (!signal.aborted && deps.isOpen()) {
      const samples = resample(speech.samples, speech.sampleRate, deps.outputSampleRate);
      const pieces = deltaPieces(answer.answer);
      let sentPieces = 0;
      const flushTo = (count: number) => {
        for (; sentPieces < count; sentPieces++) send({ type: 'transcript.delta', turn_id: turnId, role: 'assistant', delta: pieces[sentPieces]! });
      };
      send({ type: 'output.speech_started', turn_id: turnId });
      const playback = deps.play(samples, {
        onFirstFrame: (at) => { firstFrameAt = at; },
        onProgress: (fraction) => flushTo(Math.floor(fraction * pieces.length)),
      });
      const result = await playback.done;
      reason = result.reason;
      outputMs = result.sentMs;
      if (reason === 'completed') flushTo(pieces.length);
      send({ type: 'output.speech_stopped', turn_id: turnId, reason });
      await recorder.recordAudio(deps.sessionId, 'assistant', samples.subarray(0, Math.round((outputMs / 1000) * deps.outputSampleRate)), deps.outputSampleRate);
    }
  }
  send({ type: 'transcript.final', turn_id: turnId, role: 'assistant', text: answer.answer });

  // 5. The record.
  const interrupted = turn.interrupted || signal.aborted || (reason !== null && reason !== 'completed');
  const firstResponseMs = firstFrameAt === null ? null : Math.max(0, firstFrameAt - input.endOfInput);
  const inputAudioMs = input.kind === 'voice' ? input.speechMs : 0;
  const message = recorder.recordTurn({
    sessionId: deps.sessionId,
    turnId,
    input: input.kind,
    question,
    answer: answer.answer,
    references: answer.references ?? [],
    firstResponseMs,
    agentBuildMs: paidMs,
    inputAudioMs,
    outputAudioMs: outputMs,
    ...(answer.inputTokens !== undefined ? { inputTextTokens: answer.inputTokens } : {}),
    ...(answer.outputTokens !== undefined ? { outputTextTokens: answer.outputTokens } : {}),
    interrupted,
  });
  send({
    type: 'turn.completed',
    turn_id: turnId,
    message_id: message?.id ?? '',
    input: input.kind,
    question,
    answer: answer.answer,
    // null when no answer audio played (cut before its first frame): 0 would read as instant.
    first_response_ms: firstResponseMs === null ? null : Math.round(firstResponseMs),
    agent_build_ms: Math.round(paidMs),
    input_duration_ms: input.kind === 'voice' ? Math.round(input.speechMs) : 0,
    output_duration_ms: Math.round(outputMs),
    interrupted,
  });
}
