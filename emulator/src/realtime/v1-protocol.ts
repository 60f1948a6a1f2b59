import { PRE_CONNECT_CAPABILITY, turnEvents, type ClientEvent, type ServerEvent } from 'kb-voice/schemas';
import type { JudgeAction } from './barge-in.js';
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
  /**
   * Push-to-talk signaled (`turn_taking`): an utterance ends only on the caller's commit, so one
   * committed over an answer still under way is their question, never a false interruption: it cuts
   * the answer (the barge-in judge does not act on speech in manual turns, ./connection.ts).
   */
  manualTurns?: boolean;
}

/**
 * The kb-voice v1 protocol on the `kb-voice` channel (src/schemas/realtime-events.ts): speech
 * events around each utterance, typed questions, push-to-talk commits, explicit interrupts, pings
 * and the graceful end.
 * Speech over an answer is the barge-in judge's (./barge-in.ts): the answer is held
 * (`output.speech_paused`), resumed (`output.speech_resumed`) or cut; speech that did not cut it is
 * no turn (`input.speech_stopped` with `false_interruption`).
 */
export function v1Protocol(options: V1ProtocolOptions): ProtocolFactory {
  return (host) => new V1Protocol(host, options);
}

class V1Protocol implements RealtimeProtocol {
  readonly preConnect = true;
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
      // The caller's audio from before the call was connected is taken (input.preconnect, ./pre-connect.ts).
      capabilities: [PRE_CONNECT_CAPABILITY],
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
      return;
    }
    const listening = this.#listening ?? { turnId: turns.allocate(), scripted: undefined };
    this.#listening = undefined;
    const endOfInput = performance.now();
    const active = turns.active;
    if (active && !active.interrupted && turns.bargeInAllowed) {
      if (this.#opts.manualTurns) {
        turns.bargeIn();
      } else {
        // Heard over an answer that went on: a false interruption (a backchannel, a short sound), not a turn.
        this.event(turnEvents(listening.turnId).speechStopped(this.#host.now(), event.speechMs, { falseInterruption: true }));
        return;
      }
    }
    const preConnect = event.preConnectMs ? { pre_connect_ms: Math.round(event.preConnectMs) } : {};
    this.event({ ...turnEvents(listening.turnId).speechStopped(this.#host.now(), event.speechMs), ...preConnect });
    turns.start({
      kind: 'voice', turnId: listening.turnId, audio: event.audio, sampleRate: VAD_SAMPLE_RATE, speechMs: event.speechMs, endOfInput,
      ...(listening.scripted !== undefined ? { scripted: listening.scripted } : {}),
    });
  }

  interruption(action: JudgeAction): void {
    const turns = this.#host.turns;
    const turnId = turns.active?.id;
    if (action === 'pause') {
      if (turns.pause() && turnId !== undefined) this.event(turnEvents(turnId).answerPaused());
    } else if (action === 'resume') {
      if (turns.resume(true) && turnId !== undefined) this.event(turnEvents(turnId).answerResumed());
    } else if (action === 'cut') {
      turns.bargeIn();
    }
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
      case 'input.preconnect': {
        const refused = this.#host.preConnect(event);
        if (refused) this.#send({ type: 'error', code: 'protocol_error', message: refused });
        return;
      }
      case 'input.commit':
        // Push-to-talk: the caller released talk, so the utterance is over now, not after the
        // hangover; it becomes the turn through vad() like any other. Nothing open: nothing to do.
        this.#host.endUtterance();
        return;
      default:
        // Every client event is handled: a new one fails to compile here until it is.
        return event satisfies never;
    }
  }
}

