import wrtc from '@roamhq/wrtc';
import SimplePeer from 'simple-peer';
import type { VoiceSessionApi } from '../../../src/client/index.js';
import { turnSequence, type RealtimeSessionIn, type TurnScript } from '../../../src/schemas/index.js';

/** One answering peer of the fake service. */
export interface FakeCall {
  peer: SimplePeer.Instance;
  sessionId: string;
  received: Array<Record<string, unknown>>;
  send(event: Record<string, unknown>): void;
  sendRaw(text: string): void;
  /** Sends one whole turn, every event in the service's order (kb-voice/schemas `turnSequence`). */
  turn(script: TurnScript): void;
}

/**
 * A tiny stand-in for the service's realtime side, for controller unit tests: it answers offers with
 * a real WebRTC peer (@roamhq/wrtc), sends an audio track and `session.ready`, and answers pings.
 * Every behaviour the tests need to break is a switch.
 */
export class FakeServer {
  readonly calls: FakeCall[] = [];
  readonly offers: RealtimeSessionIn[] = [];
  respondToPings = true;
  sendReady = true;
  /** When set, connect() waits for it before answering. */
  gate: Promise<void> | undefined;
  /** When set, connect() rejects with it. */
  signalingError: Error | undefined;
  warmupCalls = 0;
  warmup: () => Promise<{ success: boolean }> = async () => ({ success: true });
  lastSignal: AbortSignal | undefined;

  readonly api: VoiceSessionApi = {
    realtime: {
      connect: (_aiId, body, options) => this.answer(body, options?.signal),
      warmup: () => {
        this.warmupCalls++;
        return this.warmup();
      },
      usage: async () => ({ bot_id: 'b', session_count: 0, sessions: [] }),
      sessionCosts: async () => ({ bot_id: 'b', session_count: 0, total_cost: 0, sessions: [] }),
      audio: async (_aiId, q) => ({ session_id: q.session_id, segments: [] }),
    },
  };

  private async answer(body: RealtimeSessionIn, signal?: AbortSignal) {
    this.offers.push(body);
    this.lastSignal = signal;
    if (this.gate) await this.gate;
    if (this.signalingError) throw this.signalingError;
    const source = new wrtc.nonstandard.RTCAudioSource();
    const stream = new wrtc.MediaStream([source.createTrack()]);
    const peer = new SimplePeer({ initiator: false, trickle: false, wrtc: wrtc as never, stream, config: { iceServers: [] } });
    peer.on('error', () => undefined);
    const sessionId = body.session_id ?? `sess-${this.calls.length + 1}`;
    const call: FakeCall = {
      peer, sessionId, received: [],
      send: (event) => peer.send(JSON.stringify({ v: 1, ...event })),
      sendRaw: (text) => peer.send(text),
      turn: (script) => {
        for (const event of turnSequence(script)) peer.send(JSON.stringify(event));
      },
    };
    this.calls.push(call);
    peer.on('connect', () => {
      if (this.sendReady) call.send({ type: 'session.ready', session_id: sessionId, language: body.language ?? 'ja', agent_ready: false });
    });
    peer.on('data', (data: Uint8Array) => {
      const msg = JSON.parse(new TextDecoder().decode(data)) as Record<string, unknown>;
      call.received.push(msg);
      if (msg.type === 'ping' && this.respondToPings) call.send({ type: 'pong', t: msg.t });
    });
    const sdp = await new Promise<string>((resolve) => {
      peer.on('signal', (d: SimplePeer.SignalData) => d.type === 'answer' && resolve(d.sdp!));
      peer.signal({ type: 'offer', sdp: body.sdp });
    });
    return { session_id: sessionId, type: 'answer' as const, sdp };
  }

  close(): void {
    for (const c of this.calls) c.peer.destroy();
  }
}
