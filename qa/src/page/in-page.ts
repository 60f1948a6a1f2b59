/**
 * What `voiceCall.install(page)` puts into a page before its scripts run (`page.addInitScript`):
 *
 * - a fake microphone: `navigator.mediaDevices.getUserMedia({ audio })` answers with a track of a
 *   Web Audio `MediaStreamAudioDestinationNode`, silent until the test pushes audio into it
 *   (`__KB_VOICE_QA__.play`). No browser flag, no permission prompt: the page never reaches a real
 *   device. Video requests still go to the browser.
 * - the hook every `VoiceSession` calls when it is constructed (`globalThis.__KB_VOICE_HOOK__`,
 *   CONTRACT.md): each session is kept and its events go to the test through the binding named
 *   `binding` (`page.exposeBinding`), as plain JSON.
 *
 * This function is serialized into the page: it must stay self-contained (no imports, no outer
 * variables, nothing a compiler would turn into a helper call).
 */
export function installInPage(binding: string): void {
  type Listener = (...args: unknown[]) => void;
  interface HookedSession {
    on(event: string, listener: Listener): unknown;
    subscribe(listener: () => void): () => void;
    getSnapshot(): unknown;
    sendText(text: string): void;
    end(options?: { mode?: 'graceful' | 'immediate' }): Promise<void>;
    report(): Promise<unknown>;
  }
  const g = globalThis as unknown as Record<string, unknown>;
  if (g.__KB_VOICE_QA__) return;
  const send = (message: unknown) => {
    const fn = g[binding] as ((m: unknown) => Promise<unknown>) | undefined;
    if (fn) fn(message).catch(() => undefined);
  };
  /** JSON of a value: errors keep their code and message, functions and cycles are dropped. */
  const plain = (value: unknown): unknown => {
    const seen = new WeakSet<object>();
    return JSON.parse(
      JSON.stringify(value, (_key, v: unknown) => {
        if (v instanceof Error) return { name: v.name, code: (v as { code?: unknown }).code, message: v.message };
        if (typeof v === 'function') return undefined;
        if (v && typeof v === 'object') {
          if (seen.has(v)) return undefined;
          seen.add(v);
        }
        return v;
      }) ?? 'null',
    );
  };

  // Ids unique across navigations of the page (the test side keeps every session it heard of).
  const sessions = new Map<string, HookedSession>();
  const prefix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  g.__KB_VOICE_HOOK__ = {
    register(session: HookedSession): void {
      const id = `${prefix}-${sessions.size + 1}`;
      sessions.set(id, session);
      send({ kind: 'registered', id });
      // What reached the caller of each answer: its audible time (assistantSpeaking) and its
      // captions while it was spoken (the final transcript of a cut answer holds words never played).
      let audibleMs = 0;
      let speakingSince: number | null = null;
      const captions = new Map<number, string>();
      session.on('assistantSpeaking', (speaking) => {
        const now = performance.now();
        if (speakingSince !== null) audibleMs += now - speakingSince;
        speakingSince = speaking ? now : null;
      });
      session.on('transcript', (update) => {
        const u = update as { turnId: number; role: string; text: string; final: boolean };
        if (u.role !== 'assistant' || u.final) return;
        captions.set(u.turnId, u.text);
        send({ kind: 'caption', id, turnId: u.turnId, text: u.text });
      });
      session.on('turn', (turn) => {
        const t = turn as { id: number; answer: string; interrupted: boolean };
        const now = performance.now();
        if (speakingSince !== null) {
          audibleMs += now - speakingSince;
          speakingSince = now;
        }
        const heard = { ms: Math.round(audibleMs), text: t.interrupted ? captions.get(t.id) ?? '' : t.answer };
        audibleMs = 0;
        captions.delete(t.id);
        send({ kind: 'turn', id, turn: plain(turn), heard });
      });
      session.on('sources', (turnId, sources) => send({ kind: 'sources', id, turnId, sources: plain(sources) }));
      session.subscribe(() => send({ kind: 'snapshot', id, snapshot: plain(session.getSnapshot()) }));
    },
  };

  // ------------------------------------------------------------------ fake microphone
  let context: AudioContext | undefined;
  let destination: MediaStreamAudioDestinationNode | undefined;
  let queuedUntil = 0;
  /**
   * Page times (performance.now()) of the first clip's start and of the first microphone given, for
   * `toHaveHeardFromStart`'s failure: a question whose start the service missed by as much as
   * the microphone opened after it began was lost before any capture could run (a page slow to open it).
   */
  const marks: { firstClipAt?: number; micOpenedAt?: number } = {};
  const audio = () => {
    if (!context) {
      context = new AudioContext();
      destination = context.createMediaStreamDestination();
    }
    // Started from a user gesture (the harness's Start, the app's own button) it runs; otherwise
    // the next gesture or push resumes it.
    if (context.state === 'suspended') void context.resume().catch(() => undefined);
    return { context, destination: destination! };
  };
  const devices = navigator.mediaDevices;
  if (devices) {
    const original = devices.getUserMedia?.bind(devices);
    devices.getUserMedia = async (constraints?: MediaStreamConstraints) => {
      if (!constraints?.audio) {
        if (!original) throw new DOMException('getUserMedia is not available', 'NotFoundError');
        return original(constraints);
      }
      const { destination: node } = audio();
      // A clone per caller: a session that stops its track on end() leaves the source running.
      const stream = new MediaStream(node.stream.getAudioTracks().map((track) => track.clone()));
      marks.micOpenedAt ??= performance.now();
      return stream;
    };
  }
  const bytesOf = (base64: string) => {
    const text = atob(base64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes;
  };

  /** A clip as an AudioBuffer: a file the browser decodes (e.g. WAV), or mono PCM16 at `rate`. */
  const bufferOf = async (ctx: BaseAudioContext, clip: { file: string } | { pcm: string; rate: number }) => {
    if ('file' in clip) return ctx.decodeAudioData(bytesOf(clip.file).buffer as ArrayBuffer);
    const bytes = bytesOf(clip.pcm);
    const samples = new Int16Array(bytes.buffer, 0, bytes.length >> 1);
    const buffer = ctx.createBuffer(1, Math.max(1, samples.length), clip.rate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < samples.length; i++) data[i] = samples[i]! / 32768;
    return buffer;
  };

  g.__KB_VOICE_QA__ = {
    sessions,
    /**
     * Plays a clip: an audio file (base64; any format the browser decodes, e.g. WAV) or mono
     * PCM16 (base64) at `rate`. Queued after what is already queued, or with `over` from now on,
     * mixed over whatever plays (a noise over speech or silence). Resolves with its duration in
     * ms once it has played.
     */
    async play(clip: { file: string } | { pcm: string; rate: number }, over = false): Promise<number> {
      const { context: ctx, destination: node } = audio();
      const buffer = await bufferOf(ctx, clip);
      // Without a user gesture in the page, the browser may keep audio suspended: say so instead of hanging.
      const resumed = await Promise.race([ctx.resume().then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 3000))]);
      if (!resumed || ctx.state !== 'running') {
        throw new Error('kb-voice-qa: the page keeps its audio suspended (no user gesture): start the call with a click, e.g. locator.click()');
      }
      const source = ctx.createBufferSource();
      source.buffer = buffer;
      source.connect(node);
      const at = over ? ctx.currentTime + 0.02 : Math.max(ctx.currentTime + 0.02, queuedUntil);
      if (!over) queuedUntil = at + buffer.duration;
      marks.firstClipAt ??= performance.now() + (at - ctx.currentTime) * 1000;
      const ended = new Promise<void>((resolve) => source.addEventListener('ended', () => resolve(), { once: true }));
      source.start(at);
      await ended;
      source.disconnect();
      return Math.round(buffer.duration * 1000);
    },
    /** An audio file (base64) as mono PCM16 at 16 kHz (base64): the browser's decoder and resampler, for mixing in Node. */
    async decode16k(file: string): Promise<string> {
      const offline = new OfflineAudioContext(1, 1, 16000);
      const buffer = await offline.decodeAudioData(bytesOf(file).buffer as ArrayBuffer);
      const out = new Int16Array(buffer.length);
      for (let c = 0; c < buffer.numberOfChannels; c++) {
        const data = buffer.getChannelData(c);
        for (let i = 0; i < out.length; i++) out[i]! += Math.round((Math.max(-1, Math.min(1, data[i]!)) * 32767) / buffer.numberOfChannels);
      }
      let text = '';
      const bytes = new Uint8Array(out.buffer);
      for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return btoa(text);
    },
    /** When the first clip started and the first microphone was given (page ms; absent until then). */
    marks(): { firstClipAt?: number; micOpenedAt?: number } {
      return { ...marks };
    },
    /** Calls a method of a registered session (the test side's only way in). */
    async invoke(id: string, method: 'sendText' | 'end' | 'report', arg?: unknown): Promise<unknown> {
      const session = sessions.get(id);
      if (!session) throw new Error(`kb-voice-qa: no session ${id} in this page (was it reloaded?)`);
      if (method === 'sendText') return session.sendText(String(arg));
      if (method === 'end') return session.end(arg as { mode?: 'graceful' | 'immediate' });
      return plain(await session.report());
    },
    snapshot(id: string): unknown {
      const session = sessions.get(id);
      return session ? plain(session.getSnapshot()) : null;
    },
  };
}
