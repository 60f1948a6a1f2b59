import { deltaPieces, turnEvents, type ServerEvent } from 'kb-voice/schemas';
import type { AgentBuilder } from '../context.js';
import type { PlaybackHooks, StreamingPlayback } from './audio-out.js';
import { speechPlaceholder, type Brain } from './brain.js';
import type { ActiveTurn, TurnInput } from './turn-controller.js';
import { concat } from './pcm.js';
import { SYNTHESIS_LEAD_MS, speakSentences } from './speech.js';
import type { Recorder } from './recorder.js';

/**
 * One conversational turn, from the end of the user's input to `turn.completed`:
 * transcript of the question → agent build (first task of a cold robot) → answer → speech, one
 * sentence at a time (the next is synthesized while the current one plays its last 1.5 s), with the answer's
 * words streamed as `transcript.delta` in step with the audio actually sent, then the
 * recording of message, usage and audio. Barge-in or `response.interrupt` aborts the turn: speech
 * stops (`interrupted`) or never starts, and the turn is recorded with `interrupted: true`. A false
 * interruption only holds the audio (the connection pauses `turn.playback`); the answer then plays
 * on and is recorded whole, with the count in `false_interruptions`.
 */

export interface TurnDeps {
  brain: Brain;
  recorder: Recorder;
  agents: AgentBuilder;
  robotId: string;
  sessionId: string;
  language: string;
  outputSampleRate: number;
  /** Tells the caller one of the turn's events (the protocol retells it). */
  send(event: ServerEvent): void;
  isOpen(): boolean;
  /** Starts the answer's audio; sentences are appended to it as they are synthesized. */
  stream(hooks: PlaybackHooks): StreamingPlayback;
}

export async function runTurn(input: TurnInput, turn: ActiveTurn, deps: TurnDeps): Promise<void> {
  const { brain, recorder, send } = deps;
  const signal = turn.abort.signal;
  const turnId = input.turnId;
  const events = turnEvents(turnId);

  // 1. The question.
  let question: string;
  let placeholder = false;
  let scripted = false;
  // The question's recording is written while the question is answered: a file write (a libuv
  // thread, slow on a busy machine) must not stand between the end of speech and the first answer
  // frame. Its segment index is reserved at once; a failed write still fails the turn, at the end.
  let userAudio: Promise<unknown> = Promise.resolve();
  if (input.kind === 'voice') {
    userAudio = recorder.recordAudio(deps.sessionId, 'user', input.audio, input.sampleRate);
    userAudio.catch(() => undefined); // awaited below; this only keeps an early failure from being "unhandled"
    if (input.scripted !== undefined) {
      // QA said what this utterance is: no recognizer is asked, and the turn says so.
      scripted = true;
      question = input.scripted;
    } else {
      const words = await brain.recognize({
        audio: { samples: input.audio, sampleRate: input.sampleRate },
        language: deps.language,
        durationMs: input.speechMs,
      });
      placeholder = words === null || words.trim() === '';
      question = placeholder ? speechPlaceholder(input.speechMs) : words!.trim();
    }
  } else {
    question = input.text;
  }
  send(events.question(question, { placeholder, scripted }));

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

  // 4. Speech, sentence by sentence.
  let firstFrameAt: number | null = null;
  let outputMs = 0;
  let reason: 'completed' | 'interrupted' | 'ended' | null = null;
  if (!signal.aborted && deps.isOpen()) {
    /** Each sentence's pieces (deltas) and where its audio starts and ends in the clip. */
    const spans: Array<{ from: number; to: number; pieces: string[] }> = [];
    const pieces: string[] = [];
    const chunks: Int16Array[] = [];
    let appended = 0;
    let flushed = 0; // pieces sent, counted over all sentences
    const flushTo = (sentSamples: number, all = false) => {
      let target = 0;
      for (const span of spans) {
        if (all || sentSamples >= span.to) target += span.pieces.length;
        else if (sentSamples > span.from) target += Math.floor(((sentSamples - span.from) / (span.to - span.from)) * span.pieces.length);
      }
      for (; flushed < target; flushed++) send(events.answerDelta(pieces[flushed]!));
    };
    let playback: StreamingPlayback | undefined;
    try {
      for await (const sentence of speakSentences(brain.synthesize, answer.answer, deps.language, deps.outputSampleRate, signal)) {
        if (signal.aborted || !deps.isOpen()) break;
        if (!playback) {
          send(events.answerStarted());
          playback = deps.stream({
            onFirstFrame: (at) => { firstFrameAt = at; },
            onSent: (samples) => flushTo(samples),
          });
        }
        const sentencePieces = deltaPieces(sentence.text);
        spans.push({ from: appended, to: appended + sentence.samples.length, pieces: sentencePieces });
        pieces.push(...sentencePieces);
        chunks.push(sentence.samples);
        appended += sentence.samples.length;
        playback.append(sentence.samples);
        // The next sentence is synthesized when this one is nearly played out, not before.
        await playback.whenBufferedBelow(SYNTHESIS_LEAD_MS);
      }
    } catch (err) {
      // Cut (interrupt, barge-in, the call's end) while a sentence was synthesized: the synthesis
      // rejects with the signal's reason, and the turn is interrupted, not failed: what played (if
      // anything) was stopped by whoever cut it, and is finished and recorded below.
      if (!signal.aborted) {
        // A sentence failed to synthesize on its own: what is playing stops, and the turn fails (turn_failed).
        if (playback) {
          playback.stop('interrupted');
          send(events.answerStopped('interrupted'));
        }
        throw err;
      }
    }
    if (playback) {
      playback.finish();
      const result = await playback.done;
      reason = result.reason;
      outputMs = result.sentMs;
      if (reason === 'completed') flushTo(appended, true);
      send(events.answerStopped(reason));
      const spoken = concat(chunks, Math.round((outputMs / 1000) * deps.outputSampleRate));
      await recorder.recordAudio(deps.sessionId, 'assistant', spoken, deps.outputSampleRate);
    }
  }
  send(events.answer(answer.answer));

  // 5. The record.
  await userAudio;
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
    scripted,
    ...(answer.inputTokens !== undefined ? { inputTextTokens: answer.inputTokens } : {}),
    ...(answer.outputTokens !== undefined ? { outputTextTokens: answer.outputTokens } : {}),
    interrupted,
  });
  send(events.completed({
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
    ...(turn.falseInterruptions > 0 ? { false_interruptions: turn.falseInterruptions } : {}),
  }));
}
