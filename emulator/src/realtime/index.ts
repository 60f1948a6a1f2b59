import { randomUUID } from 'node:crypto';
import type { RealtimeSessionIn, RealtimeSessionOut, SdpFragment } from 'kb-voice/schemas';
import { notFound } from '../http/errors.js';
import type { EmulatorContext } from '../context.js';
import { createDefaultBrain, type Brain, type VoiceChoice } from './brain.js';
import type { FliteVoice } from './tts-flite.js';
import { RealtimeConnection, RealtimeOfferError } from './connection.js';
import { Recorder } from './recorder.js';
import type { VadOptions } from './vad.js';

export type { Brain, BrainAnswer, AnswerInput, RecognizeInput, SynthesizeInput, VoiceChoice, DefaultBrainOptions } from './brain.js';
export { createDefaultBrain, speechPlaceholder, placeholderAnswer } from './brain.js';
export { RealtimeOfferError } from './connection.js';
export { synthesizeFormant } from './tts-formant.js';
export { findEspeak, synthesizeEspeak } from './tts-espeak.js';
export { synthesizeFlite, fliteSpeaks, FliteError, FLITE_VOICES, type FliteVoice, type FliteSynthesizeOptions } from './tts-flite.js';
export { speechSentences } from './speech.js';
export { VoiceActivityDetector, VAD_SAMPLE_RATE, type VadOptions, type VadEvent } from './vad.js';
export type { Pcm } from './pcm.js';

/** The emulator's realtime voice side, called by the HTTP signaling route. */
export interface RealtimeService {
  /**
   * Answers a caller's offer. Session ids: an existing session of the robot is continued (a live
   * connection of it is closed first), an unknown id creates that session, no id creates a UUID.
   * Rejects with {@link RealtimeOfferError} (`status` 422 bad offer, 409 session of another robot
   * or being deleted, 504 no answer in time).
   */
  handleOffer(robotId: string, body: RealtimeSessionIn): Promise<RealtimeSessionOut>;
  /**
   * Applies a PATCH of the session resource: trickled candidates and end-of-candidates (null: 204),
   * or an ICE restart when the fragment brings new credentials (the answer fragment: 200). Throws
   * HttpError 404 when the robot has no live connection of that session.
   */
  handlePatch(robotId: string, sessionId: string, fragment: SdpFragment): Promise<string | null>;
  /** Ends the live connection of a session, if any (e.g. when E15 deletes it). */
  endSession(sessionId: string): void;
  /** Ends every connection and frees native resources. */
  close(): Promise<void>;
}

export interface RealtimeServiceOptions {
  /**
   * Replaces parts of the default brain (recognize / answer / synthesize); the parts not given keep
   * their offline defaults.
   */
  brain?: Partial<Brain>;
  /**
   * Voice of the default `synthesize`: `auto` (Flite for English; espeak-ng for other languages
   * when on PATH, else built-in), `flite` (Flite for English, built-in otherwise), `espeak`, `builtin`.
   */
  voice?: VoiceChoice;
  /** Flite voice for English answers (default `slt`). */
  fliteVoice?: FliteVoice;
  /** Voice-activity detection tuning (defaults: mode 2, speech after 100 ms, silence after 600 ms). */
  vad?: VadOptions;
}

/** Creates the realtime service of an emulator context. */
export function createRealtimeService(ctx: EmulatorContext, options: RealtimeServiceOptions = {}): RealtimeService {
  const defaults = createDefaultBrain({ store: ctx.store, voice: options.voice ?? 'auto', ...(options.fliteVoice ? { fliteVoice: options.fliteVoice } : {}) });
  const brain: Brain = {
    recognize: options.brain?.recognize?.bind(options.brain) ?? defaults.recognize,
    answer: options.brain?.answer?.bind(options.brain) ?? defaults.answer,
    synthesize: options.brain?.synthesize?.bind(options.brain) ?? defaults.synthesize,
  };
  const recorder = new Recorder(ctx);
  const live = new Map<string, RealtimeConnection>();
  /** Next turn number per session, so a reconnection continues the numbering. */
  const nextTurn = new Map<string, number>();
  let closed = false;

  return {
    async handleOffer(robotId, body) {
      if (closed) throw new RealtimeOfferError('signaling_timeout', 503, 'the realtime service is closed');
      const sessionId = body.session_id ?? randomUUID();
      const existing = ctx.store.sessions.get(sessionId);
      if (existing && existing.robot_id !== robotId) {
        throw new RealtimeOfferError('session_conflict', 409, 'session_id names a session of another robot');
      }
      if (existing?.deleting) throw new RealtimeOfferError('session_conflict', 409, 'the session is being deleted');
      const language = body.language ?? existing?.language ?? 'ja';
      // Warm the default voice while the call connects, so the first answer does not pay it.
      if (!options.brain?.synthesize) void defaults.prepare(language).catch(() => {});

      const previous = live.get(sessionId);
      if (previous) {
        nextTurn.set(sessionId, previous.nextTurnId);
        await previous.close();
      }
      const firstTurnId =
        nextTurn.get(sessionId) ?? ctx.store.messages.find((m) => m.session_id === sessionId).length + 1;

      const { connection, sdp } = await RealtimeConnection.open(
        {
          ctx, brain, recorder, robotId, sessionId, language, firstTurnId,
          ...(options.vad ? { vad: options.vad } : {}),
          ...(body.interruptions ? { interruptions: body.interruptions } : {}),
          onClosed: (conn) => {
            nextTurn.set(conn.sessionId, conn.nextTurnId);
            if (live.get(conn.sessionId) === conn) live.delete(conn.sessionId);
          },
        },
        body.sdp,
      );
      // The session exists from the first answered offer on.
      recorder.openSession({ id: sessionId, robotId, language, userIdentifier: body.user_identifier ?? existing?.user_identifier ?? null });
      if (closed) {
        await connection.close();
        throw new RealtimeOfferError('signaling_timeout', 503, 'the realtime service is closed');
      }
      live.set(sessionId, connection);
      return { session_id: sessionId, type: 'answer', sdp };
    },

    async handlePatch(robotId, sessionId, fragment) {
      const connection = live.get(sessionId);
      if (!connection || connection.robotId !== robotId || connection.closed) throw notFound('Session');
      return connection.patch(fragment);
    },

    endSession(sessionId) {
      void live.get(sessionId)?.end();
    },

    async close() {
      closed = true;
      await Promise.all([...live.values()].map((c) => c.close()));
      live.clear();
    },
  };
}
