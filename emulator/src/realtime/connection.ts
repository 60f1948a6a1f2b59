import wrtc from '@roamhq/wrtc';
import Peer from 'simple-peer';
import { DATA_CHANNEL_LABEL, PROTOCOL_VERSION, type SdpFragment, type ServerEvent } from 'kb-voice/schemas';
import { RealtimeOfferError } from './errors.js';
import { ANSWER_GATHER_MS, SessionIce } from './ice.js';
import { preferOpusDtx } from './sdp-answer.js';
import type { ClientEvent } from 'kb-voice/schemas';
import type { EmulatorContext } from '../context.js';
import { OUTPUT_SAMPLE_RATE, PacedAudioOutput, type Playback } from './audio-out.js';
import type { Brain } from './brain.js';
import type { Dialect, DialectFactory } from './dialect.js';
import { resample, toMono } from './pcm.js';
import { encodeServerEvent, parseClientMessage, type OutgoingEvent } from './protocol.js';
import type { Recorder } from './recorder.js';
import { runTurn, type TurnInput } from './turn.js';
import { releaseBeforeExit } from './wrtc-exit.js';
import { VAD_SAMPLE_RATE, VoiceActivityDetector, type VadOptions, type VadEvent } from './vad.js';

const { RTCAudioSink, RTCAudioSource } = wrtc.nonstandard;



export { RealtimeOfferError };

export interface ConnectionOptions {
  ctx: EmulatorContext;
  brain: Brain;
  recorder: Recorder;
  robotId: string;
  sessionId: string;
  language: string;
  /** Number of the first turn of this connection (turns continue across reconnections). */
  firstTurnId: number;
  /** `session.ready`'s `resumed`: set when the offer named a session (true: its state was known). */
  resumed?: boolean;
  vad?: VadOptions;
  /**
   * Barge-in (signaling's `interruptions`): `auto` (default) lets speech or a typed question cut the
   * answer in progress; `off` queues them as the next turns, answered in order once it finished.
   */
  interruptions?: 'auto' | 'off';
  /** How long to wait for ICE gathering before giving up on the answer (ms). */
  answerTimeoutMs?: number;
  /** Speaks another data-channel dialect than v1 (e.g. OpenAI's `oai-events`). */
  dialect?: DialectFactory;
  onClosed(conn: RealtimeConnection): void;
}

/** A turn being answered: what barge-in, `response.interrupt` and session end act on. */
export interface ActiveTurn {
  readonly id: number;
  readonly abort: AbortController;
  interrupted: boolean;
  playback?: Playback;
}

/**
 * One answering peer: simple-peer on @roamhq/wrtc with the caller's audio in (RTCAudioSink → VAD)
 * and synthesized speech out (RTCAudioSource), plus the caller-created `kb-voice` data channel.
 */
export class RealtimeConnection {
  readonly sessionId: string;
  readonly robotId: string;
  readonly #opts: ConnectionOptions;
  readonly #peer: Peer.Instance;
  readonly #source = new RTCAudioSource();
  readonly #track: MediaStreamTrack;
  readonly #output: PacedAudioOutput;
  readonly #vad: VoiceActivityDetector;
  readonly #openedAt = performance.now();
  #sink: InstanceType<typeof RTCAudioSink> | undefined;
  #nextTurnId: number;
  #listeningTurn: number | undefined;
  /** The scripted words taken for the utterance being heard (QA script), if any. */
  #scripted: string | undefined;
  #current: ActiveTurn | undefined;
  /** Inputs heard while an answer ran with interruptions off: the next turns, in order. */
  readonly #queued: TurnInput[] = [];
  readonly #running = new Set<Promise<void>>();
  #closed = false;
  #ready = false;
  readonly #dialect: Dialect | undefined;
  #ice!: SessionIce;

  private constructor(opts: ConnectionOptions, vad: VoiceActivityDetector) {
    this.#opts = opts;
    this.sessionId = opts.sessionId;
    this.robotId = opts.robotId;
    this.#nextTurnId = opts.firstTurnId;
    this.#vad = vad;
    releaseBeforeExit(this.#source);
    this.#track = this.#source.createTrack();
    this.#output = new PacedAudioOutput(this.#source);
    this.#peer = new Peer({
      initiator: false,
      wrtc,
      trickle: false,
      // The answer carries what was gathered within this long of the first candidate: the host UDP
      // candidates of every interface come together within a few ms, while libwebrtc's later
      // allocation steps take ~100 ms more when the offer had no candidates yet (a trickled one).
      iceCompleteTimeout: ANSWER_GATHER_MS,
      sdpTransform: preferOpusDtx,
      channelName: DATA_CHANNEL_LABEL,
      // Loopback/LAN only and offline: host candidates, no STUN lookups.
      config: { iceServers: [] },
      streams: [new wrtc.MediaStream([this.#track])],
    });
    this.#peer.on('track', (track: MediaStreamTrack) => this.#attachSink(track));
    this.#peer.on('connect', () => this.#onConnect());
    this.#peer.on('data', (data: unknown) => this.#onMessage(data));
    this.#peer.on('close', () => void this.close());
    this.#peer.on('error', () => void this.close());
    this.#dialect = opts.dialect?.({
      sessionId: this.sessionId,
      robotId: this.robotId,
      now: () => this.#now(),
      sendText: (text) => this.#sendText(text),
      nextTurnId: () => this.#nextTurnId++,
      startTurn: (input) => this.#start(input),
      interrupt: () => {
        if (!this.#current) return false;
        this.#interrupt(this.#current);
        return true;
      },
      end: () => this.end(),
    });
  }

  /** Creates the peer, applies the offer and resolves the answer SDP (all ICE candidates included). */
  static async open(opts: ConnectionOptions, offerSdp: string): Promise<{ connection: RealtimeConnection; sdp: string }> {
    if (!/^m=audio /m.test(offerSdp)) {
      throw new RealtimeOfferError('invalid_offer', 422, 'the offer must contain an audio media section (the caller sends its microphone track)');
    }
    if (!/^m=application /m.test(offerSdp)) {
      throw new RealtimeOfferError('invalid_offer', 422, 'the offer must contain a data channel (label "kb-voice")');
    }
    const vad = await VoiceActivityDetector.create(opts.vad);
    const conn = new RealtimeConnection(opts, vad);
    conn.#ice = new SessionIce(conn.#peer, offerSdp);
    try {
      const sdp = await conn.#answer(offerSdp, opts.answerTimeoutMs ?? 10000);
      return { connection: conn, sdp };
    } catch (err) {
      await conn.close();
      throw err;
    }
  }

  #answer(offerSdp: string, timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        reject(new RealtimeOfferError('signaling_timeout', 504, `no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      const onSignal = (data: Peer.SignalData) => {
        if (data.type !== 'answer' || !data.sdp) return; // renegotiation requests are not used
        cleanup();
        resolve(data.sdp);
      };
      const onError = (err: Error) => {
        cleanup();
        reject(new RealtimeOfferError('invalid_offer', 422, `the offer could not be applied: ${err.message}`, { cause: err }));
      };
      const cleanup = () => {
        clearTimeout(timer);
        this.#peer.off('signal', onSignal);
        this.#peer.off('error', onError);
      };
      this.#peer.on('signal', onSignal);
      this.#peer.on('error', onError);
      try {
        this.#peer.signal({ type: 'offer', sdp: offerSdp });
      } catch (err) {
        onError(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * A PATCH of the session resource: trickled candidates (null) or an ICE restart in place (the
   * answer fragment); see {@link SessionIce}.
   */
  patch(fragment: SdpFragment): Promise<string | null> {
    return this.#ice.patch(fragment);
  }

  /** Milliseconds since the peer was created (event `at_ms`). */
  #now(): number {
    return Math.round(performance.now() - this.#openedAt);
  }

  /** Sends a server event; silently dropped once the channel is gone. */
  send(event: OutgoingEvent): void {
    if (this.#dialect) return this.#dialect.event({ v: PROTOCOL_VERSION, ...event } as ServerEvent);
    this.#sendText(encodeServerEvent(event));
  }

  #sendText(text: string): void {
    // `#ready` (set on 'connect') rather than simple-peer's `connected`: that getter reads the
    // channel's readyState from libwebrtc, a blocking call to its signaling thread on every send.
    if (this.#closed || !this.#ready) return;
    try {
      this.#peer.send(text);
    } catch {
      // The channel closed between the check and the send; 'close' tears down.
    }
  }

  #onConnect(): void {
    if (this.#ready || this.#closed) return;
    this.#ready = true;
    if (this.#dialect) return this.#dialect.open();
    this.send({
      type: 'session.ready',
      session_id: this.sessionId,
      language: this.#opts.language,
      agent_ready: this.#opts.ctx.agents.isBuilt(this.robotId),
      ...(this.#opts.resumed !== undefined ? { resumed: this.#opts.resumed } : {}),
    });
  }

  #attachSink(track: MediaStreamTrack): void {
    if (this.#sink || track.kind !== 'audio' || this.#closed) return;
    const sink = new RTCAudioSink(track);
    sink.ondata = (data: { samples: Int16Array; sampleRate: number; bitsPerSample?: number; channelCount?: number }) => {
      if (this.#closed || (data.bitsPerSample ?? 16) !== 16) return;
      const mono = toMono(data.samples, data.channelCount ?? 1);
      for (const event of this.#vad.push(resample(mono, data.sampleRate, VAD_SAMPLE_RATE))) this.#onVad(event);
    };
    this.#sink = sink;
  }

  #onVad(event: VadEvent): void {
    if (this.#dialect) return this.#dialect.vad(event);
    if (event.type === 'start') {
      const turnId = this.#nextTurnId++;
      this.#listeningTurn = turnId;
      this.#scripted = this.#opts.ctx.script.take(this.sessionId);
      this.send({ type: 'input.speech_started', turn_id: turnId, at_ms: this.#now() });
      // Barge-in: the user talks over the assistant (unless interruptions are off).
      if (this.#current && this.#bargeIn) this.#interrupt(this.#current);
      return;
    }
    const turnId = this.#listeningTurn ?? this.#nextTurnId++;
    this.#listeningTurn = undefined;
    const scripted = this.#scripted;
    this.#scripted = undefined;
    const endOfInput = performance.now();
    this.send({ type: 'input.speech_stopped', turn_id: turnId, at_ms: this.#now(), duration_ms: Math.round(event.speechMs) });
    this.#start({ kind: 'voice', turnId, audio: event.audio, sampleRate: VAD_SAMPLE_RATE, speechMs: event.speechMs, endOfInput, ...(scripted !== undefined ? { scripted } : {}) });
  }

  #onMessage(data: unknown): void {
    if (this.#dialect) return this.#dialect.message(data);
    const parsed = parseClientMessage(data);
    if (parsed.kind === 'ignored') return;
    if (parsed.kind === 'invalid') {
      this.send({ type: 'error', code: 'protocol_error', message: parsed.message });
      return;
    }
    this.#handle(parsed.event);
  }

  #handle(event: ClientEvent): void {
    switch (event.type) {
      case 'ping':
        this.send({ type: 'pong', t: event.t });
        return;
      case 'input.text': {
        // A typed question replaces an answer in progress, like speaking over it would (unless
        // interruptions are off: then it waits its turn).
        if (this.#current && this.#bargeIn) this.#interrupt(this.#current);
        const turnId = this.#nextTurnId++;
        this.#start({ kind: 'text', turnId, text: event.text, endOfInput: performance.now() });
        return;
      }
      case 'response.interrupt':
        if (this.#current) this.#interrupt(this.#current);
        return;
      case 'session.end':
        void this.end();
        return;
    }
  }

  #interrupt(turn: ActiveTurn): void {
    turn.interrupted = true;
    turn.abort.abort();
    turn.playback?.stop('interrupted');
  }

  get #bargeIn(): boolean {
    return this.#opts.interruptions !== 'off';
  }

  #start(input: TurnInput): void {
    if (this.#current && !this.#bargeIn) {
      this.#queued.push(input);
      return;
    }
    const turn: ActiveTurn = { id: input.turnId, abort: new AbortController(), interrupted: false };
    this.#current = turn;
    const run = runTurn(input, turn, {
      brain: this.#opts.brain,
      recorder: this.#opts.recorder,
      agents: this.#opts.ctx.agents,
      robotId: this.robotId,
      sessionId: this.sessionId,
      language: this.#opts.language,
      send: (e) => this.send(e),
      isOpen: () => !this.#closed,
      stream: (hooks) => {
        const playback = this.#output.stream(hooks);
        turn.playback = playback;
        return playback;
      },
      outputSampleRate: OUTPUT_SAMPLE_RATE,
    })
      .catch((err: unknown) => {
        this.send({ type: 'error', code: 'turn_failed', message: err instanceof Error ? err.message : String(err), turn_id: input.turnId });
      })
      .finally(() => {
        if (this.#current === turn) this.#current = undefined;
        this.#running.delete(run);
        const next = this.#queued.shift();
        if (next && !this.#closed && !this.#current) this.#start(next);
      });
    this.#running.add(run);
  }

  /**
   * Ends the connection gracefully: speech in progress stops (`reason: ended`), the turn being
   * answered is recorded, then the peer closes. Used for `session.end` and by the service.
   */
  async end(): Promise<void> {
    if (this.#closed) return;
    if (this.#current) {
      this.#current.abort.abort();
      this.#current.playback?.stop('ended');
    }
    // Let the turn record itself and send its last events before the channel goes away.
    await settleWithin([...this.#running], 2000);
    await this.close();
  }

  /** Tears everything down at once (sink, VAD, output, peer) and records the connection time. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#output.stop('ended');
    this.#current?.abort.abort();
    this.#sink?.stop();
    this.#sink = undefined;
    this.#track.stop();
    this.#peer.destroy();
    this.#vad.close();
    this.#opts.recorder.addDuration(this.sessionId, performance.now() - this.#openedAt, true);
    this.#opts.onClosed(this);
    // Pending turns finish on their own (their sends are dropped); wait so callers can rely on the store.
    await settleWithin([...this.#running], 2000);
  }

  /** The next turn number (for a reconnection continuing this session). */
  get nextTurnId(): number {
    return this.#nextTurnId;
  }
}

/** Waits for `promises` to settle, at most `ms` (a turn stuck in a slow brain must not block closing). */
async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise((r) => { timer = setTimeout(r, ms); })]);
  clearTimeout(timer);
}
