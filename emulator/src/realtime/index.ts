import { randomUUID } from 'node:crypto';
import type { RealtimeSessionIn, RealtimeSessionOut, SdpFragment } from 'kb-voice/schemas';
import { MissedTurns } from './missed-turns.js';
import { notFound } from '../http/errors.js';
import type { EmulatorContext } from '../context.js';
import type { Store } from '../store.js';
import { createDefaultBrain, type Brain, type VoiceChoice } from './brain.js';
import type { FliteVoice } from './tts-flite.js';
import { RealtimeConnection, RealtimeOfferError } from './connection.js';
import type { ProtocolFactory } from './realtime-protocol.js';
import { openAIProtocol } from './openai/protocol.js';
import { v1Protocol } from './v1-protocol.js';
import type { SessionState } from './openai/session-config.js';
import { Recorder } from './recorder.js';
import { ResumeWindow } from './resume-window.js';
import type { VadOptions } from './vad.js';
import { interruptionSettings, type InterruptionSettings } from './barge-in.js';

export type { Brain, BrainAnswer, AnswerInput, RecognizeInput, SynthesizeInput, VoiceChoice, DefaultBrainOptions } from './brain.js';
export { createDefaultBrain, speechPlaceholder, placeholderAnswer } from './brain.js';
export { RealtimeOfferError } from './connection.js';
export { DEFAULT_RESUME_WINDOW_MS } from './resume-window.js';
export { synthesizeFormant } from './tts-formant.js';
export { findEspeak, synthesizeEspeak } from './tts-espeak.js';
export { VOICE_CHOICES } from './brain.js';
export { synthesizeFlite, fliteSpeaks, FliteError, FLITE_VOICES, type FliteVoice, type FliteSynthesizeOptions } from './tts-flite.js';
export { speechSentences } from './speech.js';
export { VoiceActivityDetector, VAD_SAMPLE_RATE, type VadOptions, type VadEvent } from './vad.js';
export type { Pcm } from './pcm.js';

/**
 * An offer to answer: kb-voice v1 signaling (`POST /v1/robots/{ai_id}/realtime/sessions`, the
 * `kb-voice` channel) or an OpenAI-protocol call (`POST /v1/realtime/calls`, the `oai-events` channel).
 */
export type RealtimeOffer = RealtimeSessionIn | ({ type: 'oai-call' } & RealtimeCallIn);

/** The emulator's realtime voice side, called by the HTTP signaling routes. */
export interface RealtimeService {
  /**
   * Answers an offer, in either protocol. kb-voice v1 session ids: an existing session of the robot
   * is continued while it is live or within `resumeWindowMs` of its last connection closing (a live
   * connection of it is closed first; `session.ready` says `resumed: true`, and turn numbers go on
   * from the session's stored messages), an unknown id creates that session (`resumed: false`,
   * turns from 1), no id creates a UUID. An OpenAI call is a new session whose id is `session.id`
   * (409 when in use). Rejects with {@link RealtimeOfferError} (`status` 422 bad offer, 409 session
   * of another robot, being deleted or past its resume window, 503 `maxSessions` reached, 504 no
   * answer in time).
   */
  handleOffer(robotId: string, offer: RealtimeOffer): Promise<RealtimeSessionOut>;
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

/** An OpenAI-protocol call: the caller's offer and the session's effective configuration. */
export interface RealtimeCallIn {
  sdp: string;
  session: SessionState;
  userIdentifier: string | null;
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
  /** Flite voice for English answers (default `kal16`; `slt` sounds more natural at about three times the CPU). */
  fliteVoice?: FliteVoice;
  /** Voice-activity detection tuning (defaults: mode 2, speech after 100 ms, silence after 600 ms). */
  vad?: VadOptions;
  /**
   * Most realtime sessions connected or being answered at once; an offer beyond it is refused with
   * 503 and `Retry-After` (a reconnection of a connected session replaces it and is not refused).
   * Default {@link DEFAULT_MAX_REALTIME_SESSIONS}.
   */
  maxSessions?: number;
  /**
   * How long after its last connection closed a session can still be continued by an offer naming
   * it (a page reload, a network change); later such an offer is refused with 409. Default
   * {@link DEFAULT_RESUME_WINDOW_MS} (120000).
   */
  resumeWindowMs?: number;
  /** Clock of the resume window (ms since the epoch); default `Date.now`. */
  now?: () => number;
}

/**
 * Default cap on concurrent realtime sessions: the issue's target, below the 96 the emulator was
 * measured to serve on two cores with first answers within 2x one session's (bench 6, 2026-11-25,
 * quiet machine, both voices, listeners' microphones muted), and well below the ~160 concurrent
 * offers at which signaling outlasted the client's 15 s connect timeout. A QA run on a smaller
 * machine keeps its answers fast; `--max-sessions` raises it.
 */
export const DEFAULT_MAX_REALTIME_SESSIONS = 64;
/** `Retry-After` of an offer refused at the cap, in seconds. */
const RETRY_AFTER_SECONDS = 5;

/** The number the next turn of a session takes, from its stored messages (e.g. after a restart). */
function nextTurnFromStore(store: Store, sessionId: string): number {
  let next = 1;
  let count = 0;
  for (const m of store.messages.where('session_id', sessionId)) {
    count++;
    // Messages record their turn number; older ones (e.g. seeded) count in order.
    const turnId = (m.question_metadata as { turn_id?: unknown } | null)?.turn_id;
    next = Math.max(next, (typeof turnId === 'number' ? turnId : count) + 1);
  }
  return next;
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
  const missedTurns = new MissedTurns();
  const resumable = new ResumeWindow(options.resumeWindowMs, options.now);
  let closed = false;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_REALTIME_SESSIONS;
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new RangeError(`maxRealtimeSessions must be an integer >= 1, got ${maxSessions}`);
  /** Offers being answered: each holds a peer, so they count against the cap. */
  let answering = 0;
  /** Runs `answer` within the session cap; checked before any peer is made, so a refusal costs nothing. */
  const admit = async <T>(sessionId: string | undefined, answer: () => Promise<T>): Promise<T> => {
    if (!(sessionId !== undefined && live.has(sessionId)) && live.size + answering >= maxSessions) {
      throw new RealtimeOfferError('capacity', 503, `The emulator already runs ${maxSessions} realtime sessions (maxRealtimeSessions); retry later`, { retryAfterSeconds: RETRY_AFTER_SECONDS });
    }
    answering++;
    try {
      return await answer();
    } finally {
      answering--;
    }
  };

  /** What differs between the protocols' offers; everything else is {@link answer}'s. */
  interface Prepared {
    sessionId: string;
    language: string;
    userIdentifier: string | null;
    firstTurnId: number;
    protocol: ProtocolFactory;
    interruptions?: InterruptionSettings;
    /** The client ends each utterance (push-to-talk signaled): silence ends none. */
    manualTurns: boolean;
  }

  /** kb-voice v1: continues a named session of the robot (closing its live connection first). */
  const prepareV1 = async (robotId: string, body: RealtimeSessionIn): Promise<Prepared> => {
    const sessionId = body.session_id ?? randomUUID();
    const existing = ctx.store.sessions.get(sessionId);
    if (existing && existing.robot_id !== robotId) throw new RealtimeOfferError('session_conflict', 409, 'session_id names a session of another robot');
    if (existing?.deleting) throw new RealtimeOfferError('session_conflict', 409, 'the session is being deleted');
    resumable.check(sessionId, existing, live.has(sessionId));
    const language = body.language ?? existing?.language ?? 'ja';
    const previous = live.get(sessionId);
    if (previous) {
      nextTurn.set(sessionId, previous.nextTurnId);
      await previous.close();
    }
    // Only a reconnection (the offer named the session) says whether its state was still known.
    const resumed = body.session_id === undefined ? undefined : existing !== undefined || previous !== undefined;
    const manualTurns = body.turn_taking === 'push-to-talk';
    return {
      sessionId, language,
      userIdentifier: body.user_identifier ?? existing?.user_identifier ?? null,
      firstTurnId: nextTurn.get(sessionId) ?? nextTurnFromStore(ctx.store, sessionId),
      protocol: v1Protocol({
        language,
        agentReady: () => ctx.agents.isBuilt(robotId),
        ...(resumed !== undefined ? { resumed } : {}),
        takeScript: () => ctx.script.take(sessionId),
        manualTurns,
      }),
      interruptions: interruptionSettings(body.interruptions),
      manualTurns,
    };
  };

  /** OpenAI: always a new session. */
  const prepareCall = (call: RealtimeCallIn): Prepared => {
    const sessionId = call.session.id;
    if (ctx.store.sessions.get(sessionId) || live.has(sessionId)) throw new RealtimeOfferError('session_conflict', 409, 'the call id is already in use');
    return {
      sessionId,
      language: call.session.transcription?.language ?? 'ja',
      userIdentifier: call.userIdentifier,
      firstTurnId: 1,
      protocol: openAIProtocol({ session: call.session, usageOf: (messageId) => ctx.store.usage.where('message_id', messageId)[0] }),
      // `turn_detection: null` is the protocol's own: utterances join its input buffer until committed.
      manualTurns: false,
    };
  };

  /** The one offer path: the peer, the session record, the live map. */
  const answer = async (robotId: string, offer: RealtimeOffer): Promise<RealtimeSessionOut> => {
    if (closed) throw new RealtimeOfferError('signaling_timeout', 503, 'the realtime service is closed');
    const p = offer.type === 'oai-call' ? prepareCall(offer) : await prepareV1(robotId, offer);
    // Warm the default voice while the call connects, so the first answer does not pay it.
    if (!options.brain?.synthesize) void defaults.prepare(p.language).catch(() => {});
    const { connection, sdp } = await RealtimeConnection.open(
      {
        ctx, brain, recorder, robotId, sessionId: p.sessionId, language: p.language, firstTurnId: p.firstTurnId, protocol: p.protocol,
        vad: { ...options.vad, manualTurns: p.manualTurns },
        ...(p.interruptions ? { interruptions: p.interruptions } : {}),
        // to the session's live connection if it has one (a turn can settle after its replacement opened)
        onMissed: (event) => {
          const current = live.get(p.sessionId);
          if (current && !current.closed) current.resend(event);
          else missedTurns.add(p.sessionId, event);
        },
        onClosed: (conn) => {
          nextTurn.set(conn.sessionId, conn.nextTurnId);
          resumable.dropped(conn.sessionId);
          if (live.get(conn.sessionId) === conn) live.delete(conn.sessionId);
        },
      },
      offer.sdp,
    );
    // The session exists from the first answered offer on.
    recorder.openSession({ id: p.sessionId, robotId, language: p.language, userIdentifier: p.userIdentifier });
    if (closed) {
      await connection.close();
      throw new RealtimeOfferError('signaling_timeout', 503, 'the realtime service is closed');
    }
    live.set(p.sessionId, connection);
    for (const event of missedTurns.take(p.sessionId)) connection.resend(event);
    return { session_id: p.sessionId, type: 'answer', sdp };
  };

  const service: RealtimeService = {
    // Within the session cap; a v1 reconnection of a connected session replaces it and is not refused.
    handleOffer: (robotId, offer) => admit(offer.type === 'offer' ? offer.session_id : undefined, () => answer(robotId, offer)),

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
  return service;
}
