import type { SessionReport, VoiceSession as VoiceSessionType } from 'kb-voice';
import { prepareUtterance } from '../speech.js';
import type { CallTurn, Utterance } from '../types.js';

/** Where a Node call goes and as whom. */
export interface NodeCallTarget {
  /** The relay (or service) base URL, e.g. `http://127.0.0.1:8788/api/voice`. */
  relayUrl: string;
  aiId: string;
  /** The emulator behind the relay: `say(text)` then also scripts the words it recognizes. */
  emulatorUrl?: string;
  /** Default `en`. */
  language?: string;
  /** The caller's identity (the relay scopes and limits per user); each virtual user its own. */
  userIdentifier?: string;
  /** Extra headers on every request to the relay (e.g. a token your relay's `authorize` reads). */
  headers?: Record<string, string>;
  /** Limit for connecting (default 15000 ms). */
  connectTimeoutMs?: number;
}

/** What a line reports while the call runs. */
export interface LineListener {
  turn(turn: CallTurn, clientPerceivedMs: number | null): void;
  status(status: string): void;
}

/** What `end()` resolves with: the parts of `report()` a load report uses (null when it could not be fetched). */
export interface LineReport {
  mos: number | null;
  audio: Array<{ segment: number; url: string }>;
}

type KbVoice = typeof import('kb-voice');
type Emulator = typeof import('kb-voice-emulator');
let modules: Promise<{ kb: KbVoice; emulator: Emulator; wrtc: unknown }> | undefined;

/** kb-voice, kb-voice-emulator (FakeMicrophone) and @roamhq/wrtc, loaded once per process. */
function loadModules() {
  modules ??= (async () => {
    try {
      const [kb, emulator, wrtc] = await Promise.all([import('kb-voice'), import('kb-voice-emulator'), import('@roamhq/wrtc')]);
      return { kb, emulator, wrtc: (wrtc as { default?: unknown }).default ?? wrtc };
    } catch (cause) {
      modules = undefined;
      throw new Error('kb-voice-qa: Node callers need kb-voice-emulator (its FakeMicrophone and Flite) and @roamhq/wrtc: npm install -D kb-voice-emulator', { cause });
    }
  })();
  return modules;
}

/** A connection failure with the session's error code. */
export class LineError extends Error {
  constructor(readonly code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * One call's media side in the caller process: kb-voice's `VoiceSession` over @roamhq/wrtc with
 * kb-voice-emulator's `FakeMicrophone` (frames only while it speaks, so a listening caller costs
 * nothing). Measures the caller's own perceived latency of spoken turns: its speech end to the
 * answer's first audio.
 */
export class NodeLine {
  #speechEndAt: number | null = null;
  #firstAudioAt: number | null = null;
  #ended: Promise<LineReport> | undefined;

  private constructor(
    readonly session: VoiceSessionType,
    private readonly mic: InstanceType<Emulator['FakeMicrophone']>,
    private readonly target: NodeCallTarget,
    readonly connectMs: number,
    listener: LineListener,
  ) {
    session.on('assistantSpeaking', (on: boolean) => {
      if (on && this.#speechEndAt !== null && this.#firstAudioAt === null) this.#firstAudioAt = performance.now();
    });
    session.on('turn', (turn: CallTurn) => {
      let perceived: number | null = null;
      if (turn.input === 'voice') {
        if (this.#speechEndAt !== null && this.#firstAudioAt !== null) perceived = Math.round(this.#firstAudioAt - this.#speechEndAt);
        this.#speechEndAt = this.#firstAudioAt = null;
      }
      listener.turn(turn, perceived);
    });
    session.on('state', (state: { status: string }) => listener.status(state.status));
  }

  /** Connects; rejects with a `LineError` whose code is the session's (else `connect_failed`). */
  static async open(target: NodeCallTarget, listener: LineListener): Promise<NodeLine> {
    const { kb, emulator, wrtc } = await loadModules();
    const api = kb.createApiClient({ baseUrl: target.relayUrl, ...(target.headers ? { headers: target.headers } : {}) });
    const mic = new emulator.FakeMicrophone({ ...(target.emulatorUrl ? { emulatorUrl: target.emulatorUrl } : {}), sendSilence: false });
    const session = new kb.VoiceSession({
      aiId: target.aiId, api, wrtc: wrtc as never, microphone: mic.open, language: target.language ?? 'en',
      ...(target.userIdentifier ? { userIdentifier: target.userIdentifier } : {}),
      connectTimeoutMs: target.connectTimeoutMs ?? 15_000,
    });
    const t0 = performance.now();
    try {
      await session.start();
    } catch (cause) {
      mic.close();
      const code = (cause as { code?: unknown }).code;
      throw new LineError(typeof code === 'string' ? code : 'connect_failed', `the call did not connect: ${(cause as Error).message}`, { cause });
    }
    return new NodeLine(session, mic, target, Math.round(performance.now() - t0), listener);
  }

  get status(): string {
    return this.session.state.status;
  }

  /** Speaks text (Flite; on the emulator also scripted) or a WAV `{ wav, transcript? }`; resolves once spoken. */
  async say(utterance: Utterance): Promise<void> {
    const { wav, transcript } = await prepareUtterance(utterance);
    await this.mic.playWav(wav, {
      ...(transcript !== undefined && this.target.emulatorUrl ? { transcript, sessionId: this.session.sessionId ?? undefined } : {}),
    });
    this.#speechEndAt = performance.now();
    this.#firstAudioAt = null;
  }

  type(text: string): void {
    this.session.sendText(text);
  }

  /** Ends the call and fetches its report; idempotent; the microphone is closed either way. */
  end(mode: 'graceful' | 'immediate' = 'graceful'): Promise<LineReport> {
    this.#ended ??= (async () => {
      let report: SessionReport | null = null;
      try {
        await this.session.end({ mode });
        report = await this.session.report().catch(() => null);
      } finally {
        this.mic.close();
      }
      return { mos: report?.quality?.mos.mean ?? null, audio: (report?.audio ?? []).map((a) => ({ segment: a.segment_index, url: a.url })) };
    })();
    return this.#ended;
  }
}
