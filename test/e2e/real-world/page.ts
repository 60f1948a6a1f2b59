// The page of the real-world end-to-end tests (issue 27): a VoiceSession built from the options the
// test passes, its events recorded for the test to read. Bundled by the test with esbuild from the
// built package, as an app would use it.
import { createApiClient, simplePeerTransport, VoiceSession, type VoiceSessionOptions } from 'kb-voice';

/** What the test reads back: every event of the session, in order, as plain data. */
export interface HarnessEvent {
  type: string;
  at: number;
  data: unknown;
}

export interface HarnessStart {
  relayUrl: string;
  aiId: string;
  /** Passed through to the VoiceSession (only plain-data options). */
  options?: Record<string, unknown>;
}

declare global {
  interface Window {
    harness: {
      session: VoiceSession | undefined;
      events: HarnessEvent[];
      start(init: HarnessStart): Promise<{ sessionId: string | undefined }>;
      /** Routes the answers to `deviceId`; resolves to the error code on failure, or null. */
      setOutputDevice(deviceId: string): Promise<string | null>;
      /** Sends a typed question; resolves with the turn it completed. */
      ask(text: string): Promise<{ id: number; answer: string; input: string }>;
      snapshot(): unknown;
      end(): Promise<void>;
    };
  }
}

const plain = (value: unknown): unknown => {
  if (value instanceof Error) return { name: value.name, message: value.message, code: (value as { code?: unknown }).code };
  try {
    return JSON.parse(JSON.stringify(value));
  } catch {
    return String(value);
  }
};

const RECORDED = ['state', 'turn', 'error', 'devices', 'iceSignaling', 'playbackBlocked'] as const;

window.harness = {
  session: undefined,
  events: [],
  async start({ relayUrl, aiId, options = {} }) {
    // `audioElement: true`: play through an <audio id="answer"> in the page, so the test can read its sinkId.
    // `iceRestart: true`: the default transport with ICE restarts in place (opt-in).
    const { audioElement, iceRestart, ...rest } = options;
    const element = audioElement ? document.body.appendChild(Object.assign(document.createElement('audio'), { id: 'answer' })) : undefined;
    const session = new VoiceSession({ aiId, api: createApiClient({ baseUrl: relayUrl }), language: 'en', ...rest, ...(element ? { audioElement: element } : {}), ...(iceRestart ? { transport: simplePeerTransport({ iceRestart: true }) } : {}) } as VoiceSessionOptions);
    this.session = session;
    for (const type of RECORDED) {
      (session as unknown as { on(t: string, f: (...a: unknown[]) => void): void }).on(type, (...args: unknown[]) => {
        this.events.push({ type, at: performance.now(), data: plain(args[0]) });
      });
    }
    await session.start();
    return { sessionId: session.sessionId };
  },
  ask(text) {
    const session = this.session!;
    return new Promise((resolve) => {
      const onTurn = (turn: { id: number; answer: string; input: string; question: string }) => {
        if (turn.question !== text) return;
        session.off('turn', onTurn);
        resolve({ id: turn.id, answer: turn.answer, input: turn.input });
      };
      session.on('turn', onTurn);
      session.sendText(text);
    });
  },
  setOutputDevice(deviceId) {
    return this.session!.setOutputDevice(deviceId).then(() => null, (e: { code?: string }) => e.code ?? String(e));
  },
  snapshot() {
    return plain(this.session?.getSnapshot());
  },
  async end() {
    await this.session?.end({ mode: 'immediate' });
  },
};
document.body.dataset.ready = 'true';
