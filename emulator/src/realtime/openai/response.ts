import type { OaiAssistantItem, OaiResponse, OaiUsage } from 'kb-voice/schemas';
import type { ServerEvent } from 'kb-voice/schemas';
import { oaiError, oaiId, type OaiOutgoing } from './events.js';

/** The recorded usage of one turn (the emulator's usage record), or undefined when nothing was recorded. */
export type UsageLookup = (messageId: string) =>
  | { input_text_tokens: number; input_audio_tokens: number; cached_tokens: number; output_text_tokens: number; output_audio_tokens: number }
  | undefined;

export interface ResponseDeps {
  send(event: OaiOutgoing): void;
  usageOf: UsageLookup;
  /** The id of the conversation's last item (the assistant item follows it). */
  lastItemId(): string | null;
  /** Adds or replaces an item of the conversation (for `conversation.item.retrieve`). */
  storeItem(item: OaiAssistantItem): void;
  /** The user's spoken question was transcribed (words) or could not be (null). */
  transcribed(userItemId: string, words: string | null, speechMs: number): void;
  /** The response is over (`response.done` sent). */
  finished(response: ResponseTurn): void;
}

/**
 * One response of the OpenAI protocol: retells the v1 events of one turn (transcript, speech,
 * deltas, `turn.completed`) as OpenAI's `response.*`, `conversation.item.*` and
 * `output_audio_buffer.*` events. Usage in `response.done` is the turn's recorded usage record, so
 * the numbers are those E11–E13 report; its `metadata` carries the turn's `message_id` and the
 * agent build time it paid (`agent_build_ms`, in ms, as a string: OpenAI's metadata is strings).
 */
export class ResponseTurn {
  readonly id = oaiId('resp');
  readonly conversationId: string;
  readonly #deps: ResponseDeps;
  readonly #userItemId: string | undefined;
  readonly #speechMs: number;
  #item: OaiAssistantItem | undefined;
  #previousItemId: string | null = null;
  #transcript = '';
  #speechEnd: 'completed' | 'interrupted' | 'ended' | undefined;
  #done = false;
  /** Why the response is being cancelled, when the protocol cancels it. */
  cancelReason: 'turn_detected' | 'client_cancelled' | undefined;

  constructor(deps: ResponseDeps, conversationId: string, input: { userItemId?: string; speechMs?: number } = {}) {
    this.#deps = deps;
    this.conversationId = conversationId;
    this.#userItemId = input.userItemId;
    this.#speechMs = input.speechMs ?? 0;
  }

  get done(): boolean {
    return this.#done;
  }

  /** Sends `response.created`. */
  start(): void {
    this.#deps.send({ type: 'response.created', response: this.#response('in_progress') });
  }

  #response(status: OaiResponse['status'], extra: Partial<OaiResponse> = {}): OaiResponse {
    return {
      id: this.id,
      object: 'realtime.response',
      status,
      output: this.#item ? [this.#item] : [],
      output_modalities: ['audio'],
      conversation_id: this.conversationId,
      ...extra,
    };
  }

  #part() {
    return { response_id: this.id, item_id: this.#item!.id, output_index: 0, content_index: 0 };
  }

  /** One v1 event of this response's turn. */
  handle(event: ServerEvent): void {
    const send = this.#deps.send;
    switch (event.type) {
      case 'transcript.final':
        if (event.role === 'user') {
          if (this.#userItemId) this.#deps.transcribed(this.#userItemId, event.placeholder ? null : event.text, this.#speechMs);
          return;
        }
        return this.#closeItem(event.text);
      case 'output.speech_started': {
        const previous = this.#deps.lastItemId();
        this.#previousItemId = previous;
        this.#item = { id: oaiId('item'), object: 'realtime.item', type: 'message', role: 'assistant', status: 'in_progress', content: [] };
        this.#deps.storeItem(this.#item);
        send({ type: 'response.output_item.added', response_id: this.id, output_index: 0, item: this.#item });
        send({ type: 'conversation.item.added', item: this.#item, previous_item_id: previous });
        this.#item = { ...this.#item, content: [{ type: 'output_audio', transcript: '' }] };
        send({ type: 'response.content_part.added', ...this.#part(), part: { type: 'audio', transcript: '' } });
        send({ type: 'output_audio_buffer.started', response_id: this.id });
        return;
      }
      case 'transcript.delta':
        if (!this.#item || event.role !== 'assistant') return;
        this.#transcript += event.delta;
        send({ type: 'response.output_audio_transcript.delta', ...this.#part(), delta: event.delta });
        return;
      case 'output.speech_stopped':
        this.#speechEnd = event.reason;
        if (!this.#item) return;
        send({ type: 'response.output_audio.done', ...this.#part() });
        if (event.reason === 'interrupted') send({ type: 'output_audio_buffer.cleared', response_id: this.id });
        return;
      case 'turn.completed':
        return this.#finish(event.interrupted, event.message_id, undefined, event.agent_build_ms);
      case 'error':
        send(oaiError(event.code, event.message, { type: 'server_error' }));
        return this.#finish(true, '', { type: 'server_error', code: event.code, message: event.message });
      default:
        return;
    }
  }

  /** The answer's words are final: the transcript heard (all of it, or up to the interruption). */
  #closeItem(answer: string): void {
    if (!this.#item) return;
    const complete = this.#speechEnd === 'completed';
    const transcript = complete ? answer : this.#transcript;
    this.#item = { ...this.#item, status: complete ? 'completed' : 'incomplete', content: [{ type: 'output_audio', transcript }] };
    this.#deps.storeItem(this.#item);
    const send = this.#deps.send;
    send({ type: 'response.output_audio_transcript.done', ...this.#part(), transcript });
    send({ type: 'response.content_part.done', ...this.#part(), part: { type: 'audio', transcript } });
    send({ type: 'response.output_item.done', response_id: this.id, output_index: 0, item: this.#item });
    send({ type: 'conversation.item.done', item: this.#item, previous_item_id: this.#previousItemId });
  }

  #finish(interrupted: boolean, messageId: string, failure?: { type: string; code: string; message: string }, agentBuildMs?: number | null): void {
    if (this.#done) return;
    this.#done = true;
    const usage = toUsage(messageId ? this.#deps.usageOf(messageId) : undefined);
    // OpenAI's response metadata is string → string: the turn's message id and the agent build time
    // it paid (ms), which kb-voice's OpenAI codec reports as the turn's agentBuildMs.
    const metadata: Record<string, string> = {
      ...(messageId ? { message_id: messageId } : {}),
      ...(typeof agentBuildMs === 'number' ? { agent_build_ms: String(Math.round(agentBuildMs)) } : {}),
    };
    const extra = { usage, ...(Object.keys(metadata).length > 0 ? { metadata } : {}) };
    let response: OaiResponse;
    if (failure) response = this.#response('failed', { status_details: { type: 'failed', error: failure }, ...extra });
    else if (interrupted) {
      response = this.#response('cancelled', {
        status_details: { type: 'cancelled', reason: this.cancelReason ?? 'client_cancelled' },
        ...extra,
      });
    } else response = this.#response('completed', extra);
    this.#deps.send({ type: 'response.done', response });
    if (this.#item && this.#speechEnd === 'completed') this.#deps.send({ type: 'output_audio_buffer.stopped', response_id: this.id });
    this.#deps.finished(this);
  }
}

/** OpenAI's usage block from the emulator's usage record (zeros when none was recorded). */
export function toUsage(record: ReturnType<UsageLookup>): OaiUsage {
  const r = record ?? { input_text_tokens: 0, input_audio_tokens: 0, cached_tokens: 0, output_text_tokens: 0, output_audio_tokens: 0 };
  const input = r.input_text_tokens + r.input_audio_tokens + r.cached_tokens;
  const output = r.output_text_tokens + r.output_audio_tokens;
  return {
    total_tokens: input + output,
    input_tokens: input,
    output_tokens: output,
    input_token_details: {
      text_tokens: r.input_text_tokens,
      audio_tokens: r.input_audio_tokens,
      cached_tokens: r.cached_tokens,
      cached_tokens_details: { text_tokens: 0, audio_tokens: 0 },
    },
    output_token_details: { text_tokens: r.output_text_tokens, audio_tokens: r.output_audio_tokens },
  };
}
