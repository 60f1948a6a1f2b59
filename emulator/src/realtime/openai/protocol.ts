import * as z from 'zod/mini';
import { OaiClientEvent, type OaiItem, type OaiUserItem } from 'kb-voice/schemas';
import type { RealtimeProtocol, ProtocolFactory, ProtocolHost } from '../realtime-protocol.js';
import { concat } from '../pcm.js';
import type { ServerEvent } from 'kb-voice/schemas';
import { VAD_SAMPLE_RATE, type VadEvent } from '../vad.js';
import { encodeOaiEvent, oaiError, oaiId, type OaiOutgoing } from './events.js';
import { ResponseTurn, type UsageLookup } from './response.js';
import { applySessionConfig, describeSession, turnTakingOf, UnsupportedConfigError, type SessionState } from './session-config.js';
import type { JudgeAction } from '../barge-in.js';

export interface OpenAIProtocolOptions {
  /** The session's configuration when the call starts (from the client secret and the call). */
  session: SessionState;
  usageOf: UsageLookup;
}

/** A user input waiting for `response.create`. */
type PendingInput =
  | { kind: 'text'; itemId: string; text: string }
  | { kind: 'voice'; itemId: string; audio: Int16Array; speechMs: number };

/**
 * The OpenAI Realtime protocol on the `oai-events` data channel. Server VAD (the default, also for
 * `semantic_vad`) turns each utterance into a committed user item and, with `create_response`, a
 * response; `turn_detection: null` leaves turns to the client (`input_audio_buffer.commit` +
 * `response.create`). Typed questions are `conversation.item.create` + `response.create`. Spoken
 * questions are transcribed by the emulator's recognizer when one is configured, and otherwise get
 * `conversation.item.input_audio_transcription.failed`: words are never invented.
 */
export function openAIProtocol(options: OpenAIProtocolOptions): ProtocolFactory {
  return (host) => new OpenAIProtocol(host, options);
}

class OpenAIProtocol implements RealtimeProtocol {
  readonly #host: ProtocolHost;
  readonly #usageOf: UsageLookup;
  readonly #conversationId = oaiId('conv');
  #session: SessionState;
  readonly #items = new Map<string, OaiItem>();
  #lastItemId: string | null = null;
  #pending: PendingInput[] = [];
  /** Manual turns: utterances heard since the last commit or clear. */
  #buffer: { audio: Int16Array; speechMs: number }[] = [];
  /** Server VAD: the item of the utterance being spoken. */
  #speakingItemId: string | undefined;
  /** The responses whose turn has not completed, by turn number (the turns are the controller's). */
  readonly #responses = new Map<number, ResponseTurn>();
  #lastResponseId: string | undefined;

  constructor(host: ProtocolHost, options: OpenAIProtocolOptions) {
    this.#host = host;
    this.#session = options.session;
    this.#usageOf = options.usageOf;
  }

  /** The response in progress: the one of the controller's active turn, until its response.done. */
  get #active(): ResponseTurn | undefined {
    const turnId = this.#host.turns.active?.id;
    return turnId === undefined ? undefined : this.#responses.get(turnId);
  }

  #send(event: OaiOutgoing): void {
    this.#host.sendText(encodeOaiEvent(event));
  }

  open(): void {
    this.#host.configure(turnTakingOf(this.#session));
    this.#send({ type: 'session.created', session: describeSession(this.#session) });
  }

  // ---- the caller's voice ----

  vad(event: VadEvent): void {
    const detection = this.#session.turnDetection;
    if (!detection) {
      // Manual turns: keep what was said until the client commits it.
      if (event.type === 'stop') this.#buffer.push({ audio: event.audio, speechMs: event.speechMs });
      return;
    }
    if (event.type === 'start') {
      // Whether it interrupts the response is the barge-in judge's call (interruption()).
      this.#speakingItemId = oaiId('item');
      this.#send({ type: 'input_audio_buffer.speech_started', item_id: this.#speakingItemId, audio_start_ms: this.#host.now() });
      return;
    }
    const itemId = this.#speakingItemId ?? oaiId('item');
    this.#speakingItemId = undefined;
    this.#send({ type: 'input_audio_buffer.speech_stopped', item_id: itemId, audio_end_ms: this.#host.now() });
    const active = this.#host.turns.active;
    // Speech over a response that went on (too short to interrupt it, a backchannel): a false
    // interruption, not committed as a user turn.
    if (detection.interrupt_response !== false && active && !active.interrupted) return;
    this.#commitAudio(itemId, event.audio, event.speechMs);
    if (detection.create_response !== false && !this.#active) this.#respond();
  }

  interruption(action: JudgeAction): void {
    const turns = this.#host.turns;
    if (action === 'pause') turns.pause();
    else if (action === 'resume') turns.resume(true);
    else if (action === 'cut') this.#cancel('turn_detected');
  }

  #commitAudio(itemId: string, audio: Int16Array, speechMs: number): void {
    const previous = this.#lastItemId;
    this.#send({ type: 'input_audio_buffer.committed', item_id: itemId, previous_item_id: previous });
    this.#addUserItem({ id: itemId, object: 'realtime.item', type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_audio', transcript: '' }] });
    this.#pending.push({ kind: 'voice', itemId, audio, speechMs });
  }

  #addUserItem(item: OaiUserItem): void {
    const previous = this.#lastItemId;
    this.#storeItem(item);
    this.#send({ type: 'conversation.item.added', item, previous_item_id: previous });
    this.#send({ type: 'conversation.item.done', item, previous_item_id: previous });
  }

  #storeItem(item: OaiItem): void {
    if (!this.#items.has(item.id)) this.#lastItemId = item.id;
    this.#items.set(item.id, item);
  }

  // ---- responses ----

  /** Answers the pending inputs: the last spoken one, or the typed ones together. */
  #respond(eventId?: string): void {
    if (this.#active) {
      this.#send(oaiError('conversation_already_has_active_response', 'a response is in progress; cancel it or wait for response.done', eventId ? { eventId } : {}));
      return;
    }
    const pending = this.#pending;
    const last = pending.at(-1);
    if (!last) {
      this.#send(oaiError('response_without_input', 'the emulator answers the user: add a user message (conversation.item.create) or commit audio before response.create', eventId ? { eventId } : {}));
      return;
    }
    this.#pending = [];
    const turnId = this.#host.turns.allocate();
    const response = new ResponseTurn(
      {
        send: (e) => this.#send(e),
        usageOf: this.#usageOf,
        lastItemId: () => this.#lastItemId,
        storeItem: (item) => this.#storeItem(item),
        transcribed: (itemId, words, speechMs) => this.#transcribed(itemId, words, speechMs),
        finished: () => {
          this.#responses.delete(turnId);
          // An utterance that ended while this response was still running is answered once its turn is over.
          void this.#host.turns.whenIdle().then(() => {
            const detection = this.#session.turnDetection;
            if (detection && detection.create_response !== false && !this.#active && this.#pending.at(-1)?.kind === 'voice') this.#respond();
          });
        },
      },
      this.#conversationId,
      last.kind === 'voice' ? { userItemId: last.itemId, speechMs: last.speechMs } : {},
    );
    this.#responses.set(turnId, response);
    this.#lastResponseId = response.id;
    response.start();
    const endOfInput = performance.now();
    if (last.kind === 'voice') {
      this.#host.turns.start({ kind: 'voice', turnId, audio: last.audio, sampleRate: VAD_SAMPLE_RATE, speechMs: last.speechMs, endOfInput });
    } else {
      const text = pending.filter((p) => p.kind === 'text').map((p) => p.text).join('\n');
      this.#host.turns.start({ kind: 'text', turnId, text, endOfInput });
    }
  }

  #cancel(reason: 'turn_detected' | 'client_cancelled'): boolean {
    const active = this.#active;
    if (!active) return false;
    active.cancelReason = reason;
    return this.#host.turns.interrupt();
  }

  #transcribed(itemId: string, words: string | null, speechMs: number): void {
    const item = this.#items.get(itemId);
    if (words === null) {
      this.#send({
        type: 'conversation.item.input_audio_transcription.failed',
        item_id: itemId,
        content_index: 0,
        error: { type: 'transcription_error', code: 'no_recognizer', message: 'no speech recognizer is configured in the emulator, so the words of this utterance are unknown' },
      });
      return;
    }
    if (item?.role === 'user') this.#items.set(itemId, { ...item, content: [{ type: 'input_audio', transcript: words }] });
    this.#send({
      type: 'conversation.item.input_audio_transcription.completed',
      item_id: itemId,
      content_index: 0,
      transcript: words,
      usage: { type: 'duration', seconds: Math.round(speechMs) / 1000 },
    });
  }

  /** A v1 event of one of this call's turns. */
  event(event: ServerEvent): void {
    const turnId = (event as { turn_id?: number }).turn_id;
    const response = typeof turnId === 'number' ? this.#responses.get(turnId) : undefined;
    if (response) return response.handle(event);
    if (event.type === 'error') this.#send(oaiError(event.code, event.message, { type: 'server_error' }));
  }

  // ---- client events ----

  message(data: unknown): void {
    let json: unknown;
    try {
      json = JSON.parse(typeof data === 'string' ? data : new TextDecoder().decode(data as Uint8Array));
    } catch {
      this.#send(oaiError('invalid_json', 'the message is not valid JSON'));
      return;
    }
    const parsed = z.safeParse(OaiClientEvent, json);
    if (!parsed.success) {
      const type = (json as { type?: unknown } | null)?.type;
      const eventId = (json as { event_id?: unknown } | null)?.event_id;
      this.#send(oaiError(typeof type === 'string' ? 'invalid_event' : 'missing_type', `invalid ${typeof type === 'string' ? `"${type}" ` : ''}event: ${z.prettifyError(parsed.error)}`, typeof eventId === 'string' ? { eventId } : {}));
      return;
    }
    this.#handle(parsed.data);
  }

  #handle(event: OaiClientEvent): void {
    const ref = event.event_id ? { eventId: event.event_id } : {};
    switch (event.type) {
      case 'session.update':
        try {
          this.#session = applySessionConfig(this.#session, event.session);
        } catch (err) {
          if (!(err instanceof UnsupportedConfigError)) throw err;
          this.#send(oaiError('unsupported_config', err.message, { ...ref, param: err.param }));
          return;
        }
        this.#host.configure(turnTakingOf(this.#session));
        this.#send({ type: 'session.updated', session: describeSession(this.#session) });
        return;
      case 'conversation.item.create':
        return this.#createItem(event, ref);
      case 'conversation.item.retrieve': {
        const item = this.#items.get(event.item_id);
        if (!item) return this.#send(oaiError('item_not_found', `no item ${event.item_id} in this conversation`, { ...ref, param: 'item_id' }));
        return this.#send({ type: 'conversation.item.retrieved', item });
      }
      case 'conversation.item.delete':
        if (!this.#items.delete(event.item_id)) return this.#send(oaiError('item_not_found', `no item ${event.item_id} in this conversation`, { ...ref, param: 'item_id' }));
        if (this.#lastItemId === event.item_id) this.#lastItemId = [...this.#items.keys()].at(-1) ?? null;
        return this.#send({ type: 'conversation.item.deleted', item_id: event.item_id });
      case 'conversation.item.truncate':
        if (!this.#items.has(event.item_id)) return this.#send(oaiError('item_not_found', `no item ${event.item_id} in this conversation`, { ...ref, param: 'item_id' }));
        return this.#send({ type: 'conversation.item.truncated', item_id: event.item_id, content_index: event.content_index, audio_end_ms: event.audio_end_ms });
      case 'input_audio_buffer.append':
        return this.#send(oaiError('unsupported_event', 'over WebRTC the caller\'s audio travels on the media track, not in input_audio_buffer.append', ref));
      case 'input_audio_buffer.commit': {
        const heard = this.#buffer;
        if (heard.length === 0) return this.#send(oaiError('input_audio_buffer_commit_empty', 'no speech was heard since the last commit or clear', ref));
        this.#buffer = [];
        this.#commitAudio(oaiId('item'), concat(heard.map((u) => u.audio)), heard.reduce((ms, u) => ms + u.speechMs, 0));
        return;
      }
      case 'input_audio_buffer.clear':
        this.#buffer = [];
        return this.#send({ type: 'input_audio_buffer.cleared' });
      case 'output_audio_buffer.clear':
        // The turn reports `output_audio_buffer.cleared` itself when speech was playing.
        if (!this.#cancel('client_cancelled') && this.#lastResponseId) this.#send({ type: 'output_audio_buffer.cleared', response_id: this.#lastResponseId });
        return;
      case 'response.create':
        return this.#respond(event.event_id);
      case 'response.cancel':
        if (!this.#cancel('client_cancelled') && !this.#active) this.#send(oaiError('response_cancel_not_active', 'there is no active response to cancel', ref));
        return;
    }
  }

  #createItem(event: Extract<OaiClientEvent, { type: 'conversation.item.create' }>, ref: { eventId?: string }): void {
    const { item } = event;
    if ((item.type ?? 'message') !== 'message') {
      return this.#send(oaiError('unsupported_item', `the emulator does not implement ${item.type} items (function calling, MCP)`, { ...ref, param: 'item.type' }));
    }
    if (item.role !== 'user') {
      return this.#send(oaiError('unsupported_item', 'the emulator accepts user messages only', { ...ref, param: 'item.role' }));
    }
    const parts = item.content ?? [];
    const texts: string[] = [];
    for (const part of parts) {
      if (part.type !== 'input_text' || typeof part.text !== 'string') {
        return this.#send(oaiError('unsupported_content', `the emulator accepts input_text content only, not ${part.type}`, { ...ref, param: 'item.content' }));
      }
      texts.push(part.text);
    }
    const text = texts.join('\n').trim();
    if (text === '') return this.#send(oaiError('empty_message', 'the message has no text', { ...ref, param: 'item.content' }));
    const id = item.id ?? oaiId('item');
    if (this.#items.has(id)) return this.#send(oaiError('item_exists', `an item ${id} already exists`, { ...ref, param: 'item.id' }));
    this.#addUserItem({ id, object: 'realtime.item', type: 'message', role: 'user', status: 'completed', content: texts.map((t) => ({ type: 'input_text' as const, text: t })) });
    this.#pending.push({ kind: 'text', itemId: id, text });
  }
}
