import { createApiClient } from '../api/client.js';
import type { CallCheckResult } from '../check/types.js';
import type { VoiceSessionError } from '../client/errors.js';
import type { AudioLevels, SessionEvents, TalkOutcome, TranscriptUpdate, Turn } from '../client/events.js';
import { SessionHolder } from '../client/holder.js';
import type { VoiceSessionOptions } from '../client/options.js';
import type { VoiceSession } from '../client/session.js';
import type { SessionSnapshot } from '../client/snapshot.js';
import type { SessionState } from '../client/state.js';
import { describeError, type WidgetProblem } from './describe-error.js';
import { uiLanguage, WidgetText } from './locale.js';
import type { WidgetMessageTable } from './messages.js';
import { WidgetView } from './view.js';
import { withSources } from '../sources/index.js';

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
  /** Push-to-talk: the visitor started (true) or stopped (false) talking. */
  talking: CustomEvent<boolean>;
  /** Push-to-talk: whether the service heard a hold (once per hold, after its release; the widget shows "I didn't catch that"). */
  talk: CustomEvent<TalkOutcome>;
  error: CustomEvent<VoiceSessionError>;
  /** "Test my setup" finished: `detail` is the check's result (kb-voice/check's `CallCheckResult`). */
  check: CustomEvent<CallCheckResult>;
  /** For developers: where each finished turn's latency went (`Turn.timing`, docs/quality.md "Where the time goes"). */
  timing: CustomEvent<Pick<Turn, 'id' | 'input' | 'firstResponseMs' | 'perceivedLatencyMs' | 'timing'>>;
}

/** Session events the element re-dispatches (`level` is not one: it fires 10 times a second). */
const FORWARDED = ['state', 'turn', 'transcript', 'mute', 'talking', 'talk', 'error'] as const satisfies readonly (keyof SessionEvents)[];

// Defining the class must not throw where there is no DOM (server-side rendering imports it too).
const Base: typeof HTMLElement = typeof HTMLElement === 'undefined' ? (class {} as unknown as typeof HTMLElement) : HTMLElement;

/**
 * `<kb-voice-widget relay-url="/api/voice" ai-id="UUID" language="en">`: a complete voice call UI
 * in an open shadow root. Each call is a new {@link VoiceSession}; the element shows its snapshot.
 */
export class KbVoiceWidget extends Base {
  static readonly observedAttributes = ['relay-url', 'ai-id', 'language', 'turn-taking', 'sources'];

  /**
   * Extra options for the VoiceSession of the next call (`userIdentifier`, `iceServers`,
   * `interruptions`, a test `transport` and `api`, ...). `aiId`, `language` and `turnTaking` come
   * from the attributes when set; `api` is made from `relay-url` unless given here (tests).
   */
  sessionOptions: Partial<Omit<VoiceSessionOptions, 'aiId'>> = {};

  /** The same "one session per call" holder as the React hook (mute carries into the next call). */
  readonly #holder = new SessionHolder(() => this.#options(), (session) => this.#attach(session));
  #view: WidgetView | undefined;
  #detach: (() => void) | undefined;
  #unmount: (() => void) | undefined;
  /** The robot and API client of the current (or last) call: E9 for Show passage. */
  #call: { aiId: string; api: VoiceSessionOptions['api'] } | undefined;
  /** Options of the call being started (attributes read and checked by start()). */
  #next: VoiceSessionOptions | undefined;
  /** The current (or last) call is push-to-talk. */
  #callPushToTalk = false;
  #renderQueued = false;
  /** The current call has no microphone (`microphone: false`, or "Continue by typing"). */
  #textOnly = false;
  /** A problem found by the widget itself (bad attributes, a rejected question), shown until the next action. */
  #localError: unknown;
  #messages: Partial<WidgetMessageTable> = {};
  #text: WidgetText | undefined;
  /** Follows the page's `lang` while connected (the UI language follows it unless `language` is set). */
  #pageLang: MutationObserver | undefined;
  readonly #languageChanged = (): void => this.#retext();

  /**
   * The page's own strings, by key (docs/widget.md lists them): single strings over the built-in
   * table of the UI language, or a whole table for a language not built in (its missing keys stay
   * English). Setting it redraws the widget.
   */
  get messages(): Partial<WidgetMessageTable> {
    return this.#messages;
  }

  set messages(messages: Partial<WidgetMessageTable>) {
    this.#messages = { ...messages };
    this.#retext();
  }

  /** The UI language in use: `language`, then the page's `lang`, then the browser's (a BCP 47 tag). */
  get uiLanguage(): string {
    return this.#words().language;
  }

  /**
   * `'push-to-talk'`: the visitor holds the talk button (or Space) while speaking and the service
   * hears nothing otherwise; `'auto'`: the service hears the microphone all the time. The
   * `turn-taking` attribute (reflected by this property), else `sessionOptions.turnTaking`, else
   * `'auto'`; read when a call starts. An attribute value other than the two stops start() with an
   * error that names it.
   */
  get turnTaking(): 'auto' | 'push-to-talk' {
    const attribute = this.getAttribute('turn-taking')?.trim();
    if (attribute === 'auto' || attribute === 'push-to-talk') return attribute;
    return this.sessionOptions.turnTaking ?? 'auto';
  }

  set turnTaking(mode: 'auto' | 'push-to-talk') {
    this.setAttribute('turn-taking', mode);
  }

  /** Sources under answers, and their rating, unless the `sources` attribute is `off`. */
  get #sources(): boolean {
    return this.getAttribute('sources')?.trim() !== 'off';
  }

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
        setInput: (id) => void this.#holder.setInputDevice(id).catch((error: unknown) => this.#fail(error)),
        setOutput: (id) => void this.#holder.setOutputDevice(id).catch((error: unknown) => this.#fail(error)),
        typeInstead: () => void this.#start(true),
        talk: (on) => this.#talk(on),
        check: () => void this.check(),
        rate: (turnId, rating, feedback) => this.#holder.session!.rate(turnId, feedback === undefined ? { rating } : { rating, feedback }),
        highlight: (messageId, body) => this.#highlight(messageId, body),
      }, this.nonce || this.getAttribute('nonce') || ''); // browsers hide the attribute, the property keeps it
      // The holder tells of every change of the current call's snapshot, and of a mute chosen before a call.
      this.#holder.subscribe(() => this.#render());
    }
    this.#unmount ??= this.#holder.attach();
    if (!this.#pageLang && typeof MutationObserver !== 'undefined') {
      this.#pageLang = new MutationObserver(this.#languageChanged);
      this.#pageLang.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
      addEventListener('languagechange', this.#languageChanged);
    }
    this.#retext();
  }

  disconnectedCallback(): void {
    // Moving the element (remove + insert in one task) keeps the call; removing it ends it, so the
    // microphone never stays open behind a page that no longer shows the widget.
    this.#unmount?.();
    this.#unmount = undefined;
    this.#pageLang?.disconnect();
    this.#pageLang = undefined;
    removeEventListener('languagechange', this.#languageChanged);
  }

  attributeChangedCallback(name: string): void {
    // Attributes are read when a call starts; a change clears a complaint about them. The UI
    // language follows `language` at once, the talk button `turn-taking` (until the next call starts it keeps the call's).
    if (name === 'language') this.#retext();
    if (name === 'turn-taking' || name === 'sources') this.#render();
    if (this.#localError !== undefined) {
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
    const target = this.#target();
    if (!target) return;
    const { aiId, api } = (this.#call = target);
    const turnTakingAttribute = this.getAttribute('turn-taking')?.trim();
    if (turnTakingAttribute && turnTakingAttribute !== this.turnTaking) {
      this.#fail({ code: 'bad_turn_taking', value: turnTakingAttribute } satisfies WidgetProblem);
      return;
    }
    const turnTaking = this.turnTaking;
    const language = this.getAttribute('language')?.trim() || document.documentElement.lang || undefined;
    const { sources, ...options } = this.sessionOptions;
    this.#next = {
      ...options, aiId, api, turnTaking,
      ...(language ? { language } : {}), ...(textOnly ? { microphone: false } : {}),
      // sources="off": nothing is read after answers and the sources UI is never loaded.
      ...(this.#sources ? { sources: sources ?? withSources() } : {}),
    };
    this.#textOnly = textOnly;
    this.#callPushToTalk = turnTaking === 'push-to-talk';
    await this.#holder.start();
  }

  /** Show passage: E9 through the relay, naming the message that cites the file (the relay checks it). */
  #highlight(messageId: string, body: { file_id: string; text: string; page: number }): Promise<unknown> {
    const target = this.#call;
    const pdf = (target?.api as { pdf?: { highlightCited?(aiId: string, query: { message_id: string }, b: typeof body): Promise<unknown> } } | undefined)?.pdf;
    if (!target || !pdf?.highlightCited) return Promise.reject(new Error('this call\'s api has no pdf.highlightCited'));
    return pdf.highlightCited(target.aiId, { message_id: messageId }, body);
  }

  /** The robot and the API from the attributes; undefined (and the problem shown) when they are wrong. */
  #target(): { aiId: string; api: VoiceSessionOptions['api'] } | undefined {
    const aiId = this.getAttribute('ai-id')?.trim();
    if (!aiId) {
      this.#fail({ code: 'no_ai_id' } satisfies WidgetProblem);
      return undefined;
    }
    const relayUrl = this.getAttribute('relay-url')?.trim() || '/api/voice';
    const baseUrl = resolveUrl(relayUrl);
    if (!baseUrl) {
      this.#fail({ code: 'bad_relay_url', url: relayUrl } satisfies WidgetProblem);
      return undefined;
    }
    return { aiId, api: this.sessionOptions.api ?? createApiClient({ baseUrl }) };
  }

  /**
   * "Test my setup" (what its button does): runs `checkCall()` (kb-voice/check, loaded now) with
   * this widget's relay, robot, microphone and ICE servers, and shows the graded result in the
   * `check-result` panel (`data-grade`: the overall grade). No test call is made (nothing billed).
   * Resolves with the result (undefined when the attributes are wrong or a call is up); never rejects.
   */
  async check(): Promise<CallCheckResult | undefined> {
    if (this.#holder.busy || !this.#view) return undefined;
    const target = this.#target();
    if (!target) return undefined;
    const panel = this.#view.checking(true);
    try {
      const [{ checkCall }, { renderCheck }] = await Promise.all([import('../check/check-call.js'), import('./check-panel.js')]);
      const { microphone, iceServers, wrtc } = this.sessionOptions;
      const result = await checkCall({ ...target, microphone, iceServers, wrtc });
      renderCheck(panel, result, this.uiLanguage);
      this.dispatchEvent(new CustomEvent('check', { detail: result }));
      return result;
    } catch (error) {
      // only a chunk that failed to load gets here (checkCall itself never rejects)
      panel.hidden = true;
      this.#fail(error);
      return undefined;
    } finally {
      this.#view.checking(false);
      this.#render();
    }
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
    const offs: Array<() => void> = [];
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
    // A hold the service missed says so in the hint; the next hold brings the hint back.
    const heard = ({ heard }: TalkOutcome) => this.#view?.showTalkOutcome(heard);
    const talking = (on: boolean) => on && this.#view?.showTalkOutcome(true);
    session.on('talk', heard);
    session.on('talking', talking);
    offs.push(() => session.off('talk', heard), () => session.off('talking', talking));
    const level = (levels: AudioLevels) => this.#view?.setLevels(levels);
    session.on('level', level);
    offs.push(() => session.off('level', level));
    this.#detach = () => offs.forEach((off) => off());
    this.dispatchEvent(new CustomEvent('session', { detail: session }));
    this.#render();
  }

  #toggleMute(): void {
    // Before a call too: the next call starts muted.
    this.#holder.setMuted(!this.#holder.muted);
  }

  /** The talk button (or Space) held or let go; a refusal (no call) shows like any other problem. */
  #talk(on: boolean): void {
    try {
      this.#holder.talk(on);
    } catch (error) {
      this.#fail(error);
    }
  }

  async #resumePlayback(): Promise<void> {
    await this.#holder.resumePlayback().catch((error: unknown) => this.#fail(error));
  }

  #send(text: string): void {
    try {
      this.#holder.sendText(text);
      this.#view?.clearInput();
      if (this.#localError !== undefined) this.#fail(undefined);
    } catch (error) {
      this.#fail(error);
    }
  }

  /** Shows a problem (undefined: none) until the next action. */
  #fail(error: unknown): void {
    this.#localError = error;
    this.#render();
  }

  /** The words of the UI language now (the language or the page's strings may have changed since). */
  #words(): WidgetText {
    const language = uiLanguage(this.getAttribute('language'), typeof document === 'undefined' ? undefined : document.documentElement.lang,
      typeof navigator === 'undefined' ? [] : navigator.languages ?? [navigator.language]);
    if (this.#text?.language !== language) this.#text = new WidgetText(language, this.#messages);
    return this.#text;
  }

  /** The UI language or the page's strings changed: every word again. */
  #retext(): void {
    this.#text = undefined;
    this.#view?.setText(this.#words());
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
      const snapshot = this.#holder.getSnapshot();
      const text = this.#words();
      // During a call the talk button follows the call's mode; between calls, the one the next call will have.
      view.update(snapshot, { textOnly: this.#textOnly, pushToTalk: this.#holder.busy ? this.#callPushToTalk : this.turnTaking === 'push-to-talk', sources: this.#sources });
      const error = this.#localError ?? shownError(snapshot);
      view.showError(error === undefined ? undefined : describeError(error, text));
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
function shownError(snapshot: SessionSnapshot | undefined): VoiceSessionError | undefined {
  if (!snapshot?.error) return undefined;
  if (snapshot.error.code === 'playback_blocked' && !snapshot.playbackBlocked) return undefined;
  if (snapshot.status === 'ended' && snapshot.state.status === 'ended' && snapshot.state.reason !== 'connection_lost') return undefined;
  return snapshot.error;
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
