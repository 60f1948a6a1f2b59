import * as z from 'zod/mini';

/**
 * QA's script of what callers are about to say. The emulator has no speech recognizer; with a
 * script, the next detected utterance is answered as the scripted words (marked `scripted: true`)
 * instead of the `[speech … — no recognizer configured]` placeholder.
 *
 * Scopes: a session's own queue (`session_id` given), and one emulator-wide queue for any session
 * that has nothing of its own queued (useful before the session id is known). Each detected
 * utterance takes the first entry of its session's queue, else of the emulator-wide one.
 */

/** Most utterances one queue holds. */
export const MAX_SCRIPT_UTTERANCES = 100;
/** Longest utterance, in characters (as long as a typed question, `input.text`). */
export const MAX_SCRIPT_UTTERANCE_CHARS = 4000;
/** Most sessions with a queue of their own at once. */
export const MAX_SCRIPTED_SESSIONS = 1000;

/** `PUT /_emulator/script` body: replaces the queue of the scope (an empty list clears it). */
export const ScriptIn = z.strictObject({
  session_id: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  utterances: z.array(
    z.string().check(
      z.maxLength(MAX_SCRIPT_UTTERANCE_CHARS),
      z.refine((s) => s.trim() !== '', 'an utterance must contain words'),
    ),
  ).check(z.maxLength(MAX_SCRIPT_UTTERANCES)),
});
export type ScriptIn = z.output<typeof ScriptIn>;

/** What `GET`/`PUT /_emulator/script` answer: every non-empty queue. */
export interface ScriptSnapshot {
  /** The emulator-wide queue. */
  utterances: string[];
  /** Queues of single sessions, by session id. */
  sessions: Record<string, string[]>;
}

export class ScriptLimitError extends Error {
  readonly code = 'script_limit';
}

export class ScriptQueue {
  #shared: string[] = [];
  readonly #sessions = new Map<string, string[]>();

  /** Replaces the queue of a session (or the emulator-wide one without a session id). */
  set(sessionId: string | undefined, utterances: readonly string[]): void {
    const list = utterances.map((u) => u.trim());
    if (sessionId === undefined) {
      this.#shared = list;
      return;
    }
    if (list.length === 0) {
      this.#sessions.delete(sessionId);
      return;
    }
    if (!this.#sessions.has(sessionId) && this.#sessions.size >= MAX_SCRIPTED_SESSIONS) {
      throw new ScriptLimitError(`at most ${MAX_SCRIPTED_SESSIONS} sessions can have a script at once`);
    }
    this.#sessions.set(sessionId, list);
  }

  /** Takes the next utterance for a session: its own queue first, else the emulator-wide one. */
  take(sessionId: string): string | undefined {
    const own = this.#sessions.get(sessionId);
    if (own?.length) {
      const next = own.shift();
      if (own.length === 0) this.#sessions.delete(sessionId);
      return next;
    }
    return this.#shared.shift();
  }

  snapshot(): ScriptSnapshot {
    return { utterances: [...this.#shared], sessions: Object.fromEntries([...this.#sessions].map(([id, list]) => [id, [...list]])) };
  }

  clear(): void {
    this.#shared = [];
    this.#sessions.clear();
  }
}
