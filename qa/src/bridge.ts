import type { Page } from '@playwright/test';
import { installInPage } from './page/in-page.js';
import type { CallSnapshot, CallTurn, HeardAnswer } from './types.js';

/** The binding through which the page's hook reports (page.exposeBinding). */
const BINDING = '__kbVoiceQaEvent';

type PageMessage =
  | { kind: 'registered'; id: string }
  | { kind: 'turn'; id: string; turn: CallTurn; heard?: HeardAnswer }
  | { kind: 'caption'; id: string; turnId: number; text: string }
  | { kind: 'snapshot'; id: string; snapshot: CallSnapshot }
  | { kind: 'sources'; id: string; turnId: number; sources: NonNullable<CallTurn['sources']> };

/** The session each turn came from, so `toCite` can wait for its sources. */
const origin = new WeakMap<CallTurn, SessionMirror>();

/**
 * The sources of `turn` (a turn from `call.nextTurn()`), waiting up to `timeoutMs` for the page to
 * read them; undefined when they did not arrive in time (or the turn is not from a call).
 */
export async function sourcesOf(turn: CallTurn, timeoutMs: number): Promise<CallTurn['sources']> {
  const mirror = origin.get(turn);
  if (mirror) await mirror.until(() => turn.sources !== undefined, timeoutMs, () => 'no sources').catch(() => undefined);
  return turn.sources;
}

/**
 * Resolves once `predicate` holds, checked now and whenever `waiters` are run (after each event);
 * rejects after `timeoutMs` with the message `describe()` gives then.
 */
function waitUntil(waiters: Set<() => void>, predicate: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
  if (predicate()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!predicate()) return;
      clearTimeout(timer);
      waiters.delete(check);
      resolve();
    };
    const timer = setTimeout(() => {
      waiters.delete(check);
      reject(new Error(describe()));
    }, timeoutMs);
    waiters.add(check);
  });
}

/** What the test side knows of one `VoiceSession` in the page, kept from its events. */
export class SessionMirror {
  readonly turns: CallTurn[] = [];
  snapshot: CallSnapshot | undefined;
  /** The captions of the answer being spoken, as its audio plays (never its final text, which a cut answer's caller did not hear). */
  caption: { turnId: number; text: string } | undefined;
  readonly #heard = new WeakMap<CallTurn, HeardAnswer>();
  readonly #waiters = new Set<() => void>();

  constructor(readonly id: string) {}

  /** Resolves once `predicate` holds (checked after every event); rejects after `timeoutMs` with `describe()`. */
  until(predicate: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
    return waitUntil(this.#waiters, predicate, timeoutMs, describe);
  }

  /** What reached the caller of `turn`'s answer (as the page measured it; the whole answer when not measured). */
  heard(turn: CallTurn): HeardAnswer {
    return this.#heard.get(turn) ?? { ms: null, text: turn.answer };
  }

  /** @internal */
  receive(message: PageMessage): void {
    if (message.kind === 'turn') {
      this.turns.push(message.turn);
      origin.set(message.turn, this);
      if (message.heard) this.#heard.set(message.turn, message.heard);
      if (this.caption?.turnId === message.turn.id) this.caption = undefined;
    } else if (message.kind === 'caption') {
      this.caption = { turnId: message.turnId, text: message.text };
    } else if (message.kind === 'snapshot') {
      this.snapshot = message.snapshot;
    } else if (message.kind === 'sources') {
      // The turn object the test holds gets its sources (the page read them after the turn ended).
      const turn = [...this.turns].reverse().find((t) => t.id === message.turnId && t.sources === undefined);
      if (turn) turn.sources = message.sources;
    }
    for (const check of [...this.#waiters]) check();
  }
}

/** One page's hooked sessions. */
export class PageBridge {
  readonly sessions: SessionMirror[] = [];
  /** Sessions already handed to a Call by attach(). */
  readonly attached = new Set<string>();
  readonly #waiters = new Set<() => void>();

  private constructor(readonly page: Page) {}

  static readonly #bridges = new WeakMap<Page, PageBridge>();

  /** Puts the fake microphone and the hook into `page` (before its scripts run); idempotent. */
  static async install(page: Page): Promise<PageBridge> {
    let bridge = PageBridge.#bridges.get(page);
    if (bridge) return bridge;
    bridge = new PageBridge(page);
    PageBridge.#bridges.set(page, bridge);
    const target = bridge;
    await page.exposeBinding(BINDING, (_source, message: PageMessage) => target.#receive(message));
    await page.addInitScript(installInPage, BINDING);
    return bridge;
  }

  static of(page: Page): PageBridge | undefined {
    return PageBridge.#bridges.get(page);
  }

  /** The first registered session not yet attached, waiting up to `timeoutMs` for one. */
  async next(timeoutMs: number): Promise<SessionMirror> {
    const free = () => this.sessions.find((s) => !this.attached.has(s.id));
    await waitUntil(this.#waiters, () => free() !== undefined, timeoutMs, () =>
      `kb-voice-qa: no VoiceSession was created in ${this.page.url()} within ${timeoutMs} ms ` +
        '(did the page start its call? was voiceCall.install(page) called before page.goto()? ' +
        'does the page use a kb-voice whose VoiceSession registers with __KB_VOICE_HOOK__?)',
    );
    const mirror = free()!;
    this.attached.add(mirror.id);
    return mirror;
  }

  #receive(message: PageMessage): void {
    if (message.kind === 'registered') {
      this.sessions.push(new SessionMirror(message.id));
      for (const check of [...this.#waiters]) check();
      return;
    }
    this.sessions.find((s) => s.id === message.id)?.receive(message);
  }
}
