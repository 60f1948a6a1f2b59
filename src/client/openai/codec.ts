import * as z from 'zod/mini';
import { PROTOCOL_VERSION, type ServerEvent } from '../../schemas/realtime-events.js';
import { systemClock } from '../../clock.js';
import { VoiceSessionError } from '../errors.js';
import { checkClientEvent, firstOfKind } from '../protocol.js';
import type { RealtimeProtocolCodec } from '../realtime-protocol.js';

/**
 * The OpenAI Realtime protocol for {@link VoiceSession}: retells OpenAI's `oai-events` in kb-voice v1
 * terms (speech flags, transcripts, turns) and v1 client events as OpenAI's. Incoming events are
 * read loosely (only the fields used, so any OpenAI-compatible server works); unknown types are
 * ignored. Liveness pings are `conversation.item.retrieve` of an item that does not exist, answered
 * by the server's `error` carrying the ping's `event_id`.
 */

const str = z.string();
const opt = <T extends z.core.$ZodType>(t: T) => z.optional(z.nullable(t));
const Incoming = z.looseObject({
  type: str,
  event_id: opt(str),
  item_id: opt(str),
  response_id: opt(str),
  delta: opt(str),
  transcript: opt(str),
  audio_start_ms: opt(z.number()),
  audio_end_ms: opt(z.number()),
  session: opt(z.looseObject({ id: opt(str), audio: opt(z.looseObject({ input: opt(z.looseObject({ transcription: opt(z.looseObject({ language: opt(str) })) })) })) })),
  item: opt(z.looseObject({ id: opt(str), role: opt(str), content: opt(z.array(z.looseObject({ type: opt(str), text: opt(str) }))) })),
  response: opt(z.looseObject({ id: opt(str), status: opt(str), metadata: opt(z.record(str, z.unknown())) })),
  error: opt(z.looseObject({ message: opt(str), code: opt(str), event_id: opt(str) })),
});

const PING = 'kbv_ping_';

interface OaiTurn {
  id: number;
  input: 'voice' | 'text';
  question: string;
  answer: string;
  /** The session clock's time at the end of the user's input, and of the first answer audio. */
  inputEnd: number;
  firstAudio?: number;
  speechMs: number;
  responseId?: string;
  /** The server said response.done (status), and whether the answer's audio is over. */
  done?: { status: string; messageId: string; agentBuildMs: number | null };
  playing: boolean;
  interrupted: boolean;
  started: number;
}

export interface OpenAICodec extends RealtimeProtocolCodec {
  /** Messages the codec wants sent after the last decode (a deferred `response.create`). */
  takeReplies(): string[];
  /** Malformed messages by their error, each reported once as `protocol_error` (at most MAX_REPORTED_UNKNOWN_TYPES kinds), all counted. */
  readonly malformed: ReadonlyMap<string, number>;
}

/** Makes the codec of one session (it keeps the turn bookkeeping). */
export function openaiCodec(now: () => number = () => systemClock.now()): OpenAICodec {
  let nextTurn = 1;
  const byItem = new Map<string, OaiTurn>();
  const byResponse = new Map<string, OaiTurn>();
  let current: OaiTurn | undefined;
  let speaking: OaiTurn | undefined;
  let active: string | undefined;
  let createAfterDone = false;
  const replies: string[] = [];
  const malformed = new Map<string, number>();
  /** A malformed message's error, reported once per kind as the v1 codec does (a peer sending garbage in a loop cannot flood the app). */
  const invalid = (error: VoiceSessionError) => (firstOfKind(malformed, error.message) ? error : []);
  const msg = (o: object) => JSON.stringify(o);
  const v = PROTOCOL_VERSION;

  const newTurn = (input: 'voice' | 'text', question = ''): OaiTurn => {
    const turn: OaiTurn = { id: nextTurn++, input, question, answer: '', inputEnd: now(), speechMs: 0, playing: false, interrupted: false, started: now() };
    current = turn;
    return turn;
  };
  const turnOf = (e: z.infer<typeof Incoming>): OaiTurn | undefined => (e.response_id ? byResponse.get(e.response_id) : undefined) ?? current;

  /** turn.completed once the response is done and its audio over (OpenAI sends them in either order). */
  const complete = (turn: OaiTurn, out: ServerEvent[]) => {
    if (!turn.done || turn.playing) return;
    const interrupted = turn.interrupted || turn.done.status !== 'completed';
    out.push({
      v, type: 'turn.completed', turn_id: turn.id, message_id: turn.done.messageId, input: turn.input,
      question: turn.question, answer: turn.answer,
      first_response_ms: turn.firstAudio === undefined ? null : Math.round(turn.firstAudio - turn.inputEnd),
      // OpenAI's events carry no build time; kb-voice's emulator puts it in response.metadata. Unknown
      // (null) otherwise: never a made-up 0.
      agent_build_ms: turn.done.agentBuildMs,
      input_duration_ms: Math.round(turn.speechMs),
      output_duration_ms: turn.firstAudio === undefined ? 0 : Math.round(now() - turn.firstAudio),
      interrupted,
    });
    turn.done = undefined;
  };

  return {
    takeReplies: () => replies.splice(0),

    malformed,
    decode(text) {
      let parsed;
      try {
        parsed = z.safeParse(Incoming, JSON.parse(text));
      } catch (err) {
        return invalid(new VoiceSessionError('protocol_error', 'Data-channel message is not JSON', { cause: err }));
      }
      if (!parsed.success) return invalid(new VoiceSessionError('protocol_error', `Invalid oai-events message: ${parsed.error.issues[0]?.message ?? 'unknown'}`, { cause: parsed.error }));
      const e = parsed.data;
      const out: ServerEvent[] = [];
      switch (e.type) {
        case 'session.created': {
          const s = e.session;
          out.push({ v, type: 'session.ready', session_id: s?.id ?? '', language: s?.audio?.input?.transcription?.language ?? '', agent_ready: false });
          break;
        }
        case 'input_audio_buffer.speech_started': {
          const turn = (speaking = newTurn('voice'));
          turn.speechMs = -(e.audio_start_ms ?? 0);
          if (e.item_id) byItem.set(e.item_id, turn);
          out.push({ v, type: 'input.speech_started', turn_id: turn.id, at_ms: e.audio_start_ms ?? 0 });
          break;
        }
        case 'input_audio_buffer.speech_stopped': {
          const turn = (e.item_id && byItem.get(e.item_id)) || speaking;
          if (!turn) break;
          turn.speechMs += e.audio_end_ms ?? 0;
          turn.inputEnd = now();
          out.push({ v, type: 'input.speech_stopped', turn_id: turn.id, at_ms: e.audio_end_ms ?? 0, duration_ms: Math.max(0, Math.round(turn.speechMs)) });
          break;
        }
        case 'input_audio_buffer.committed':
          // Manual turns (no speech events): the committed audio is the next question.
          if (e.item_id && !byItem.has(e.item_id)) byItem.set(e.item_id, newTurn('voice'));
          break;
        case 'conversation.item.added': {
          const item = e.item;
          if (item?.role !== 'user' || !item.id || byItem.has(item.id)) break;
          const typed = (item.content ?? []).filter((c) => c.type === 'input_text').map((c) => c.text ?? '').join('\n');
          if (!typed) break;
          const turn = newTurn('text', typed);
          byItem.set(item.id, turn);
          out.push({ v, type: 'transcript.final', turn_id: turn.id, role: 'user', text: typed });
          break;
        }
        case 'conversation.item.input_audio_transcription.completed':
        case 'conversation.item.input_audio_transcription.failed': {
          const turn = e.item_id ? byItem.get(e.item_id) : undefined;
          if (!turn) break;
          const failed = e.type.endsWith('failed');
          turn.question = failed ? `[speech ${(turn.speechMs / 1000).toFixed(1)} s — ${e.error?.message ?? 'not transcribed'}]` : (e.transcript ?? '');
          out.push({ v, type: 'transcript.final', turn_id: turn.id, role: 'user', text: turn.question, ...(failed ? { placeholder: true } : {}) });
          break;
        }
        case 'response.created': {
          const id = e.response?.id;
          if (!id) break;
          active = id;
          const turn = current && !current.responseId ? current : newTurn('text');
          turn.responseId = id;
          byResponse.set(id, turn);
          break;
        }
        case 'output_audio_buffer.started': {
          const turn = turnOf(e);
          if (!turn) break;
          turn.playing = true;
          turn.firstAudio ??= now();
          out.push({ v, type: 'output.speech_started', turn_id: turn.id });
          break;
        }
        case 'response.output_audio_transcript.delta':
        case 'response.output_text.delta': {
          const turn = turnOf(e);
          if (!turn || !e.delta) break;
          turn.answer += e.delta;
          out.push({ v, type: 'transcript.delta', turn_id: turn.id, role: 'assistant', delta: e.delta });
          break;
        }
        case 'response.output_audio_transcript.done':
        case 'response.output_text.done': {
          const turn = turnOf(e);
          if (!turn) break;
          turn.answer = e.transcript ?? (e as { text?: string }).text ?? turn.answer;
          out.push({ v, type: 'transcript.final', turn_id: turn.id, role: 'assistant', text: turn.answer });
          break;
        }
        case 'output_audio_buffer.stopped':
        case 'output_audio_buffer.cleared': {
          const turn = turnOf(e);
          if (!turn?.playing) break;
          turn.playing = false;
          const cleared = e.type.endsWith('cleared');
          if (cleared) turn.interrupted = true;
          out.push({ v, type: 'output.speech_stopped', turn_id: turn.id, reason: cleared ? 'interrupted' : 'completed' });
          complete(turn, out);
          break;
        }
        case 'response.done': {
          const id = e.response?.id;
          const turn = id ? byResponse.get(id) : undefined;
          if (id === active) active = undefined;
          if (createAfterDone && !active) {
            createAfterDone = false;
            replies.push(msg({ type: 'response.create' }));
          }
          if (!turn) break;
          const messageId = e.response?.metadata?.['message_id'];
          const buildMs = Number(e.response?.metadata?.['agent_build_ms'] ?? Number.NaN);
          turn.done = {
            status: e.response?.status ?? 'completed',
            messageId: typeof messageId === 'string' ? messageId : '',
            agentBuildMs: Number.isFinite(buildMs) && buildMs >= 0 ? buildMs : null,
          };
          complete(turn, out);
          break;
        }
        case 'error': {
          const ref = e.error?.event_id ?? '';
          if (ref.startsWith(PING)) out.push({ v, type: 'pong', t: Number(ref.slice(PING.length)) });
          else out.push({ v, type: 'error', code: e.error?.code ?? 'server_error', message: e.error?.message ?? 'error' });
          break;
        }
      }
      return out;
    },

    encode(event) {
      const e = checkClientEvent(event);
      const stop = [msg({ type: 'response.cancel' }), msg({ type: 'output_audio_buffer.clear' })];
      switch (e.type) {
        case 'ping':
          return [msg({ type: 'conversation.item.retrieve', item_id: `${PING}item`, event_id: `${PING}${e.t}` })];
        case 'response.interrupt':
          return active ? stop : [msg({ type: 'output_audio_buffer.clear' })];
        case 'session.end':
          // OpenAI's protocol has no goodbye message: closing the connection ends the call.
          return [];
        case 'input.preconnect':
          // OpenAI's session.created announces no pre_connect_audio: never sent, and nothing to map.
          return [];
        case 'input.commit':
          // Push-to-talk (turn_detection null): the released utterance is the question; answer it.
          return [msg({ type: 'input_audio_buffer.commit' }), msg({ type: 'response.create' })];
        case 'input.text': {
          const item = msg({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: e.text }] } });
          // A typed question replaces an answer in progress; the new response waits for the old one's end.
          if (active) {
            createAfterDone = true;
            return [...stop, item];
          }
          return [item, msg({ type: 'response.create' })];
        }
      }
    },
  };
}
