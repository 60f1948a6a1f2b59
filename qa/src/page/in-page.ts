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
      session.on('turn', (turn) => send({ kind: 'turn', id, turn: plain(turn) }));
      session.subscribe(() => send({ kind: 'snapshot', id, snapshot: plain(session.getSnapshot()) }));
    },
  };

  // ------------------------------------------------------------------ fake microphone
  let context: AudioContext | undefined;
  let destination: MediaStreamAudioDestinationNode | undefined;
  let queuedUntil = 0;
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
      return new MediaStream(node.stream.getAudioTracks().map((track) => track.clone()));
    };
  }
  const bytesOf = (base64: string) => {
    const text = atob(base64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes;
  };

  g.__KB_VOICE_QA__ = {
    sessions,
    /**
     * Queues an audio file (base64; any format the browser decodes, e.g. WAV) after what is
     * already queued; resolves with its duration in ms once it has played.
     */
    async play(file: string): Promise<number> {
      const { context: ctx, destination: node } = audio();
      const buffer = await ctx.decodeAudioData(bytesOf(file).buffer as ArrayBuffer);
      // Without a user gesture in the page, the browser may keep audio suspended: say so instead of hanging.
      const resumed = await Promise.race([ctx.resume().then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 3000))]);
      if (!resumed || ctx.state !== 'running') {
        throw new Error('kb-voice-qa: the page keeps its audio suspended (no user gesture): start the call with a click, e.g. locator.click()');
      }
      const source = ctx.createBufferSource();
      source.buffer = buffer;
      source.connect(node);
      const at = Math.max(ctx.currentTime + 0.02, queuedUntil);
      queuedUntil = at + buffer.duration;
      const ended = new Promise<void>((resolve) => source.addEventListener('ended', () => resolve(), { once: true }));
      source.start(at);
      await ended;
      source.disconnect();
      return Math.round(buffer.duration * 1000);
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
