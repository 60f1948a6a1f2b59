import { turnEvents, type ClientEvent, type ServerEvent } from 'kb-voice/schemas';
import type { RealtimeProtocol, ProtocolFactory, ProtocolHost } from './realtime-protocol.js';
import { encodeServerEvent, parseClientMessage, type OutgoingEvent } from './v1-codec.js';
import { VAD_SAMPLE_RATE, type VadEvent } from './vad.js';

export interface V1ProtocolOptions {
  language: string;
  /** `session.ready`'s `agent_ready`, read when the channel opens. */
  agentReady(): boolean;
  /** `session.ready`'s `resumed`: set when the offer named a session (true: its state was known). */
  resumed?: boolean;
  /** The QA-scripted words of the next utterance, if any (`PUT /_emulator/script`). */
  takeScript(): string | undefined;
}

/**
 * The kb-voice v1 protocol on the `kb-voice` channel (src/schemas/realtime-events.ts): speech
 * events around each utterance, typed questions, explicit interrupts, pings and the graceful end.
 */
export function v1Protocol(options: V1ProtocolOptions): ProtocolFactory {
  return (host) => new V1Protocol(host, options);
}

class V1Protocol implements RealtimeProtocol {
  readonly #host: ProtocolHost;
  readonly #opts: V1ProtocolOptions;
  /** The turn of the utterance being heard, and its scripted words. */
  #listening: { turnId: number; scripted: string | undefined } | undefined;

  constructor(host: ProtocolHost, options: V1ProtocolOptions) {
    this.#host = host;
    this.#opts = options;
  }

  #send(event: OutgoingEvent): void {
    this.#host.sendText(encodeServerEvent(event));
  }

  open(): void {
    this.#send({
      type: 'session.ready',
      session_id: this.#host.sessionId,
      language: this.#opts.language,
      agent_ready: this.#opts.agentReady(),
      ...(this.#opts.resumed !== undefined ? { resumed: this.#opts.resumed } : {}),
    });
  }

  event(event: ServerEvent): void {
    const { v: _v, ...outgoing } = event;
    this.#send(outgoing as OutgoingEvent);
  }

  vad(event: VadEvent): void {
    const turns = this.#host.turns;
    if (event.type === 'start') {
      const turnId = turns.allocate();
      this.#listening = { turnId, scripted: this.#opts.takeScript() };
      this.event(turnEvents(turnId).speechStarted(this.#host.now()));
      // Barge-in: the user talks over the assistant (unless interruptions are off).
      turns.bargeIn();
      return;
    }
    const listening = this.#listening ?? { turnId: turns.allocate(), scripted: undefined };
    this.#listening = undefined;
    const endOfInput = performance.now();
    this.event(turnEvents(listening.turnId).speechStopped(this.#host.now(), event.speechMs));
    turns.start({
      kind: 'voice', turnId: listening.turnId, audio: event.audio, sampleRate: VAD_SAMPLE_RATE, speechMs: event.speechMs, endOfInput,
      ...(listening.scripted !== undefined ? { scripted: listening.scripted } : {}),
    });
  }

  message(data: unknown): void {
    const parsed = parseClientMessage(data);
    if (parsed.kind === 'ignored') return;
    if (parsed.kind === 'invalid') return this.#send({ type: 'error', code: 'protocol_error', message: parsed.message });
    this.#handle(parsed.event);
  }

  #handle(event: ClientEvent): void {
    const turns = this.#host.turns;
    switch (event.type) {
      case 'ping':
        // at_ms: this connection's clock (the speech events' at_ms), so the client can map them onto its own.
        return this.#send({ type: 'pong', t: event.t, at_ms: this.#host.now() });
      case 'input.text':
        // A typed question replaces an answer in progress, like speaking over it would (unless
        // interruptions are off: then it waits its turn).
        turns.bargeIn();
        turns.start({ kind: 'text', turnId: turns.allocate(), text: event.text, endOfInput: performance.now() });
        return;
      case 'response.interrupt':
        turns.interrupt();
        return;
      case 'session.end':
        void this.#host.end();
        return;
    }
  }
}

