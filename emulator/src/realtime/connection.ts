import wrtc from '@roamhq/wrtc';
import Peer from 'simple-peer';
import { DATA_CHANNEL_LABEL, PROTOCOL_VERSION, type SdpFragment, type ServerEvent, type ServerEventOf } from 'kb-voice/schemas';
import { RealtimeOfferError } from './errors.js';
import { ANSWER_GATHER_MS, SessionIce } from './ice.js';
import { preferOpusDtx } from './sdp-answer.js';
import type { EmulatorContext } from '../context.js';
import { OUTPUT_SAMPLE_RATE, PacedAudioOutput } from './audio-out.js';
import type { Brain } from './brain.js';
import type { RealtimeProtocol, ProtocolFactory } from './realtime-protocol.js';
import { activeLevelDbfs, resample, toMono } from './pcm.js';
import { DEFAULT_INTERRUPTIONS, InterruptionJudge, type InterruptionSettings } from './barge-in.js';
import type { CallerFrame } from './caller-voice.js';
import { EchoGuard } from './echo-guard.js';
import type { Recorder } from './recorder.js';
import { runTurn } from './turn.js';
import { TurnController } from './turn-controller.js';
import { releaseBeforeExit } from './wrtc-exit.js';
import { VAD_SAMPLE_RATE, VoiceActivityDetector, type VadEvent, type VadOptions } from './vad.js';
import { PreConnectFeed } from './pre-connect.js';

const { RTCAudioSink, RTCAudioSource } = wrtc.nonstandard;
/** Longest wait for a client's first message after `session.ready` (its live audio is held meanwhile): a slow link's round trip and then some. */
const PRE_CONNECT_WAIT_MS = 3000;
/**
 * A turn completion sent later than this before the last message heard from the caller is not
 * known to have reached them: on a path that went dark, everything sent since the caller's last
 * ping may be lost. At close such completions are kept for the next connection too (a client keeps
 * a completion once, so telling one twice costs nothing).
 */
const UNCONFIRMED_MS = 2000;

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
  vad?: Omit<VadOptions, 'echo' | 'onFrame'>;
  /**
   * Barge-in (signaling's `interruptions`, ./barge-in.ts): in mode `auto` (default) speech cuts the
   * answer in progress once it lasted `minSpeechMs`, and shorter sounds only hold it; in mode `off`
   * speech is queued as the next turn, answered in order once it finished. With manual turns
   * (`vad.manualTurns`, push-to-talk) speech never cuts nor holds an answer: the caller's press or
   * commit does (./v1-protocol.ts).
   */
  interruptions?: InterruptionSettings;
  /** How long to wait for ICE gathering before giving up on the answer (ms). */
  answerTimeoutMs?: number;
  /** What the data channel speaks: kb-voice v1 (./v1-protocol.ts) or OpenAI's `oai-events`. */
  protocol: ProtocolFactory;
  onClosed(conn: RealtimeConnection): void;
  /**
   * A turn completion that may not have reached the caller: sent after the connection closed, or,
   * at close, sent since shortly before the caller was last heard ({@link UNCONFIRMED_MS}).
   */
  onMissed?(event: ServerEventOf<'turn.completed'>): void;
}

/**
 * One answering peer and its media: simple-peer on @roamhq/wrtc with the caller's audio in
 * (RTCAudioSink → VAD → the protocol, each frame's verdict → the barge-in judge) and synthesized
 * speech out (RTCAudioSource, its frames the echo guard's reference), the data channel handed to
 * the protocol, and the peer's lifecycle. The turns are the {@link TurnController}'s.
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
  readonly #judge: InterruptionJudge;
  /** The caller's audio on its way to the VAD: pre-connect audio first, then the live track's. */
  readonly #feed: PreConnectFeed;
  readonly #openedAt = performance.now();
  #sink: InstanceType<typeof RTCAudioSink> | undefined;
  readonly #turns: TurnController;
  #closed = false;
  #ready = false;
  /** The deadline of the wait for the client's first message (pre-connect audio or anything else). */
  #expecting: ReturnType<typeof setTimeout> | undefined;
  readonly #protocol: RealtimeProtocol;
  #ice!: SessionIce;
  /** When the caller's last message arrived. */
  #heardAt = performance.now();
  /** Completions of the session's earlier connections to tell again once the channel is open. */
  #resend: ServerEventOf<'turn.completed'>[] | undefined = [];
  /** The last turn completions sent (at most 8), with when. */
  readonly #sent: Array<{ at: number; event: ServerEventOf<'turn.completed'> }> = [];

  private constructor(opts: ConnectionOptions, vad: VoiceActivityDetector, echo: EchoGuard) {
    this.#opts = opts;
    this.sessionId = opts.sessionId;
    this.robotId = opts.robotId;
    this.#vad = vad;
    const interruptions = opts.interruptions ?? DEFAULT_INTERRUPTIONS;
    // Push-to-talk: the caller is heard only while holding talk, and pressing it over an answer cuts
    // the answer (the client's `response.interrupt`). Speech never cuts by itself there, so the hold's
    // last frames, processed after its commit when the event loop stalls, cannot pass for barge-in.
    this.#judge = new InterruptionJudge(opts.vad?.manualTurns ? { ...interruptions, mode: 'off' } : interruptions);
    this.#feed = new PreConnectFeed((samples) => {
      for (const event of this.#vad.push(samples)) this.#onVad(event);
    });
    releaseBeforeExit(this.#source);
    this.#track = this.#source.createTrack();
    const source = this.#source;
    // What is sent is the echo guard's reference: the caller's microphone may hear it back.
    this.#output = new PacedAudioOutput({
      onData: (frame) => {
        echo.sentFrame(frame.samples, performance.now());
        source.onData(frame);
      },
    });
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
    this.#peer.on('data', (data: unknown) => {
      this.#heardAt = performance.now();
      this.#protocol.message(data);
      this.#feed.messageSeen();
    });
    this.#peer.on('close', () => void this.close());
    this.#peer.on('error', () => void this.close());
    this.#turns = new TurnController({
      firstTurnId: opts.firstTurnId,
      interruptions: interruptions.mode,
      run: (input, turn) =>
        runTurn(input, turn, {
          brain: opts.brain,
          recorder: opts.recorder,
          agents: opts.ctx.agents,
          robotId: this.robotId,
          sessionId: this.sessionId,
          language: opts.language,
          send: (e) => this.#turnEvent(e),
          isOpen: () => !this.#closed,
          stream: (hooks) => {
            const playback = this.#output.stream(hooks);
            turn.playback = playback;
            // Held before its first sentence was ready: it starts paused.
            if (turn.paused) playback.pause();
            return playback;
          },
          outputSampleRate: OUTPUT_SAMPLE_RATE,
        }),
      failed: (input, err) => {
        const message = err instanceof Error ? err.message : String(err);
        this.#protocol.event({ v: PROTOCOL_VERSION, type: 'error', code: 'turn_failed', message, turn_id: input.turnId });
      },
    });
    this.#protocol = opts.protocol({
      sessionId: this.sessionId,
      robotId: this.robotId,
      now: () => this.#now(),
      sendText: (text) => this.#sendText(text),
      turns: this.#turns,
      end: () => this.end(),
      preConnect: (chunk) => (this.#closed ? undefined : this.#feed.chunk(chunk)),
      endUtterance: () => {
        const event = this.#closed ? undefined : this.#vad.commit();
        if (event) this.#onVad(event);
        return event !== undefined;
      },
      configure: ({ interruptions: next, vad: timing }) => {
        if (next) {
          this.#judge.configure(next);
          this.#turns.setInterruptions(next.mode);
        }
        if (timing) this.#vad.configure(timing);
      },
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
    const echo = new EchoGuard();
    const frames = { to: (_frame: CallerFrame) => {} };
    const vad = await VoiceActivityDetector.create({ ...opts.vad, echo, onFrame: (frame) => frames.to(frame) });
    const conn = new RealtimeConnection(opts, vad, echo);
    frames.to = (frame) => conn.#onFrame(frame);
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

  /**
   * A turn's event for the caller. Once closed nothing reaches them, but a turn the close cut still
   * completes (recorded, interrupted): its completion is kept for the session's next connection, as
   * are, at close, those sent since shortly before the caller was last heard ({@link UNCONFIRMED_MS}).
   */
  #turnEvent(event: ServerEvent): void {
    if (this.#closed) {
      if (event.type === 'turn.completed') this.#opts.onMissed?.(event);
      return;
    }
    this.#protocol.event(event);
    if (event.type === 'turn.completed' && this.#sent.push({ at: performance.now(), event }) > 8) this.#sent.shift();
  }

  /**
   * A completion an earlier connection of the session could not deliver: told (marked `resent`)
   * right after `session.ready`, or at once when that was sent.
   */
  resend(event: ServerEventOf<'turn.completed'>): void {
    if (this.#closed) return;
    const resent = { ...event, resent: true as const };
    if (this.#resend) this.#resend.push(resent);
    else this.#protocol.event(resent);
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
    this.#protocol.open();
    for (const event of this.#resend ?? []) this.#protocol.event(event);
    this.#resend = undefined;
    if (this.#protocol.preConnect) {
      this.#feed.expect();
      this.#expecting = setTimeout(() => this.#feed.release(), PRE_CONNECT_WAIT_MS);
    }
  }

  #attachSink(track: MediaStreamTrack): void {
    if (this.#sink || track.kind !== 'audio' || this.#closed) return;
    const sink = new RTCAudioSink(track);
    sink.ondata = (data: { samples: Int16Array; sampleRate: number; bitsPerSample?: number; channelCount?: number }) => {
      if (this.#closed || (data.bitsPerSample ?? 16) !== 16) return;
      const mono = toMono(data.samples, data.channelCount ?? 1);
      this.#feed.live(resample(mono, data.sampleRate, VAD_SAMPLE_RATE));
    };
    this.#sink = sink;
  }

  /** One frame's verdict: the barge-in judge decides on it while an answer is in progress. */
  #onFrame(frame: CallerFrame): void {
    const active = this.#turns.active;
    for (const action of this.#judge.frame(frame, active !== undefined && !active.interrupted)) {
      this.#protocol.interruption(action);
    }
  }

  #onVad(event: VadEvent): void {
    // The caller's voice level, learned from the utterances that become turns (not from speech the
    // answer did not yield to): up at once, down slowly.
    const active = this.#turns.active;
    if (event.type === 'stop' && (!active || active.interrupted)) this.#judge.heardCaller(activeLevelDbfs(event.audio));
    if (event.type === 'stop') event.preConnectMs = this.#feed.bufferedWithin(event.startMs, (event.audio.length * 1000) / VAD_SAMPLE_RATE);
    this.#protocol.vad(event);
  }

  /**
   * Ends the connection gracefully: speech in progress stops (`reason: ended`), the turn being
   * answered is recorded, then the peer closes. Used for `session.end` and by the service.
   */
  async end(): Promise<void> {
    if (this.#closed) return;
    // Let the turn record itself and send its last events before the channel goes away.
    await this.#turns.end();
    await this.close();
  }

  /** Tears everything down at once (sink, VAD, output, peer) and records the connection time. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const { at, event } of this.#sent) if (at > this.#heardAt - UNCONFIRMED_MS) this.#opts.onMissed?.(event);
    clearTimeout(this.#expecting);
    this.#output.stop('ended');
    const settled = this.#turns.end();
    this.#sink?.stop();
    this.#sink = undefined;
    this.#track.stop();
    this.#peer.destroy();
    this.#vad.close();
    this.#opts.recorder.addDuration(this.sessionId, performance.now() - this.#openedAt, true);
    this.#opts.onClosed(this);
    // Pending turns finish on their own (their sends are dropped); wait so callers can rely on the store.
    await settled;
  }

  /** The next turn number (for a reconnection continuing this session). */
  get nextTurnId(): number {
    return this.#turns.nextTurnId;
  }
}
