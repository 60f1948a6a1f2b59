import { createApiClient } from '../api/client.js';
import type { VoiceSessionError } from '../client/errors.js';
import type { AudioLevels, SessionEvents, TranscriptUpdate, Turn } from '../client/events.js';
import { SessionHolder } from '../client/holder.js';
import type { VoiceSessionOptions } from '../client/options.js';
import type { VoiceSession } from '../client/session.js';
import type { SessionSnapshot } from '../client/snapshot.js';
import type { SessionState } from '../client/state.js';
import { describeError } from './messages.js';
import { WidgetView } from './view.js';

/**
 * The DOM events of `<kb-voice-widget>`: the session's own events, re-dispatched on the element as
 * `CustomEvent`s (`detail` carries what the session emitted). They do not bubble: listen on the
 * element (`el.addEventListener('turn', …)`, Vue `@turn`, Angular `(turn)`, Svelte `onturn`,
 * React 19 `onturn`).
 */
export interface KbVoiceWidgetEventMap {
  /** A new call began: `detail` is its VoiceSession (also `el.session`). */
  session: CustomEvent<VoiceSession>;
  state: CustomEvent<{ state: SessionState; previous: SessionState }>;
  turn: CustomEvent<Turn>;
  transcript: CustomEvent<TranscriptUpdate>;
  mute: CustomEvent<boolean>;
  error: CustomEvent<VoiceSessionError>;
  /** For developers: where each finished turn's latency went (`Turn.timing`, docs/quality.md "Where the time goes"). */
  timing: CustomEvent<Pick<Turn, 'id' | 'input' | 'firstResponseMs' | 'perceivedLatencyMs' | 'timing'>>;
}

/** Session events the element re-dispatches (`level` is not one: it fires 10 times a second). */
const FORWARDED = ['state', 'turn', 'transcript', 'mute', 'error'] as const satisfies readonly (keyof SessionEvents)[];

// Defining the class must not throw where there is no DOM (server-side rendering imports it too).
const Base: typeof HTMLElement = typeof HTMLElement === 'undefined' ? (class {} as unknown as typeof HTMLElement) : HTMLElement;

/**
 * `<kb-voice-widget relay-url="/api/voice" ai-id="UUID" language="en">`: a complete voice call UI
 * in an open shadow root. Each call is a new {@link VoiceSession}; the element shows its snapshot.
 */
export class KbVoiceWidget extends Base {
  static readonly observedAttributes = ['relay-url', 'ai-id', 'language'];

  /**
   * Extra options for the VoiceSession of the next call (`userIdentifier`, `iceServers`,
   * `interruptions`, a test `transport`, ...). `aiId`, `api` and `language` come from the attributes.
   */
  sessionOptions: Partial<Omit<VoiceSessionOptions, 'aiId' | 'api'>> = {};

  /** The same "one session per call" holder as the React hook (mute carries into the next call). */
  readonly #holder = new SessionHolder(() => this.#options(), (session) => this.#attach(session));
  #view: WidgetView | undefined;
  #detach: (() => void) | undefined;
  #unmount: (() => void) | undefined;
  /** Options of the call being started (attributes read and checked by start()). */
  #next: VoiceSessionOptions | undefined;
  #renderQueued = false;
  /** The current call has no microphone (`microphone: false`, or "Continue by typing"). */
  #textOnly = false;
  /** A problem found by the widget itself (bad attributes, a rejected question), shown until the next action. */
  #localError: string | undefined;

  /** The current (or last) call's session; undefined before the first call. Make calls with the buttons or start(). */
  get session(): VoiceSession | undefined {
    return this.#holder.session;
  }

  /** The current call's snapshot (what the widget shows); undefined before the first call. */
  get snapshot(): SessionSnapshot | undefined {
    return this.#holder.session?.getSnapshot();
  }

  connectedCallback(): void {
    if (!this.#view) {
      const root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
      this.#view = new WidgetView(root, {
        start: () => void this.start(),
        end: () => void this.end(),
        toggleMute: () => this.#toggleMute(),
        resumePlayback: () => void this.#resumePlayback(),
        send: (text) => this.#send(text),
        setInput: (id) => void this.#holder.setInputDevice(id).catch((error: unknown) => this.#fail(describeError(error))),
        setOutput: (id) => void this.#holder.setOutputDevice(id).catch((error: unknown) => this.#fail(describeError(error))),
        typeInstead: () => void this.#start(true),
      });
    }
    this.#unmount ??= this.#holder.attach();
    this.#render();
  }

  disconnectedCallback(): void {
    // Moving the element (remove + insert in one task) keeps the call; removing it ends it, so the
    // microphone never stays open behind a page that no longer shows the widget.
    this.#unmount?.();
    this.#unmount = undefined;
  }

  attributeChangedCallback(): void {
    // Attributes are read when a call starts; a change clears a complaint about them.
    if (this.#localError) {
      this.#localError = undefined;
      this.#render();
    }
  }

  /**
   * Starts a call (what the Start button does). Never rejects: a failure is shown in the widget
   * and dispatched as an `error` event. While a call is up it returns that call's start().
   */
  start(): Promise<void> {
    return this.#start(this.sessionOptions.microphone === false);
  }

  /** `textOnly`: a call without the microphone ("Continue by typing" after it was refused). */
  async #start(textOnly: boolean): Promise<void> {
    if (this.#holder.busy) return this.#holder.start();
    const aiId = this.getAttribute('ai-id')?.trim();
    if (!aiId) {
      this.#fail('The widget has no ai-id attribute: the page\u2019s author must set it to the assistant\u2019s id.');
      return;
    }
    const relayUrl = this.getAttribute('relay-url')?.trim() || '/api/voice';
    const baseUrl = resolveUrl(relayUrl);
    if (!baseUrl) {
      this.#fail(`The widget\u2019s relay-url attribute (${relayUrl}) is not a URL: the page\u2019s author must fix it.`);
      return;
    }
    const language = this.getAttribute('language')?.trim() || document.documentElement.lang || undefined;
    this.#next = { ...this.sessionOptions, aiId, api: createApiClient({ baseUrl }), ...(language ? { language } : {}), ...(textOnly ? { microphone: false } : {}) };
    this.#textOnly = textOnly;
    await this.#holder.start();
  }

  /** Ends the call (what the End button does); never rejects. */
  async end(): Promise<void> {
    await this.#holder.end();
  }

  #options(): VoiceSessionOptions {
    const options = this.#next!;
    this.#next = undefined;
    return options;
  }

  /** A new call's session: follow it, and announce it. */
  #attach(session: VoiceSession): void {
    this.#detach?.();
    this.#localError = undefined;
    const offs = [session.subscribe(() => this.#render())];
    for (const name of FORWARDED) {
      const forward = (...args: unknown[]) => {
        const detail = name === 'state' ? { state: args[0], previous: args[1] } : args[0];
        this.dispatchEvent(new CustomEvent(name, { detail }));
      };
      session.on(name, forward);
      offs.push(() => session.off(name, forward));
    }
    const timing = ({ id, input, firstResponseMs, perceivedLatencyMs, timing: t }: Turn) =>
      this.dispatchEvent(new CustomEvent('timing', { detail: { id, input, firstResponseMs, perceivedLatencyMs, timing: t } }));
    session.on('turn', timing);
    offs.push(() => session.off('turn', timing));
    const level = ({ input }: AudioLevels) => this.#view?.setLevel(input);
    session.on('level', level);
    offs.push(() => session.off('level', level));
    this.#detach = () => offs.forEach((off) => off());
    this.dispatchEvent(new CustomEvent('session', { detail: session }));
    this.#render();
  }

  #toggleMute(): void {
    if (this.#holder.session) this.#holder.setMuted(!this.#holder.muted);
  }

  async #resumePlayback(): Promise<void> {
    await this.#holder.resumePlayback().catch((error: unknown) => this.#fail(describeError(error)));
  }

  #send(text: string): void {
    try {
      this.#holder.sendText(text);
      this.#view?.clearInput();
      if (this.#localError) this.#fail(undefined);
    } catch (error) {
      this.#fail(describeError(error));
    }
  }

  #fail(text: string | undefined): void {
    this.#localError = text;
    this.#render();
  }

  /** Coalesces the session's bursts of changes into one DOM update. */
  #render(): void {
    if (this.#renderQueued) return;
    this.#renderQueued = true;
    queueMicrotask(() => {
      this.#renderQueued = false;
      const view = this.#view;
      if (!view) return;
      const snapshot = this.#holder.session?.getSnapshot();
      view.update(snapshot, this.#textOnly);
      view.showError(this.#localError ?? errorText(snapshot));
    });
  }
}

/** `url` resolved against the page, or undefined when it is not a URL. */
function resolveUrl(url: string): string | undefined {
  try {
    return new URL(url, document.baseURI).toString();
  } catch {
    return undefined;
  }
}

/** The session's error worth showing now: the failure of a failed call, or the last one during a call. */
function errorText(snapshot: SessionSnapshot | undefined): string | undefined {
  if (!snapshot?.error) return undefined;
  if (snapshot.error.code === 'playback_blocked' && !snapshot.playbackBlocked) return undefined;
  if (snapshot.status === 'ended' && snapshot.state.status === 'ended' && snapshot.state.reason !== 'connection_lost') return undefined;
  return describeError(snapshot.error);
}

declare global {
  interface HTMLElementTagNameMap {
    'kb-voice-widget': KbVoiceWidget;
  }
}

// Typed listeners for the widget's own events (declaration merging: no code of its own).
export interface KbVoiceWidget {
  addEventListener<K extends keyof KbVoiceWidgetEventMap>(type: K, listener: (this: KbVoiceWidget, event: KbVoiceWidgetEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof KbVoiceWidgetEventMap>(type: K, listener: (this: KbVoiceWidget, event: KbVoiceWidgetEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}
