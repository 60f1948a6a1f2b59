import { deadline, sleep, type Clock } from '../../clock.js';
import type { Report, Turn } from '../events.js';
import type { MessagesApi, TurnStore } from './api.js';
import { toSources, type Source } from './normalize.js';

/** How long one read of a turn's sources may take (E17, then E18 when it adds); then it is abandoned. */
export const SOURCES_READ_LIMIT_MS = 3000;
/** Wait before the one retry of a failed read (a message stored a moment late, a blip). */
export const SOURCES_RETRY_MS = 500;

const recognized = (sources: readonly Source[]) => sources.some((s) => s.title);

/**
 * Reads each finished turn's sources in the background (an effect): E17 by the turn's message id,
 * and E18 when E17 named no reference it recognizes. Each read is bounded by
 * {@link SOURCES_READ_LIMIT_MS} and retried once; nothing waits for it, a failure leaves
 * `Turn.sources` undefined (never an error), and a read finishing after the call ended still lands.
 */
export class SourceReader {
  constructor(
    private readonly target: { aiId: string; api: { sessions?: MessagesApi } },
    private readonly clock: Clock,
    private readonly turns: TurnStore,
    private readonly report: Report,
  ) {}

  /** Starts reading `turn`'s sources; returns at once. */
  read(turn: Turn): void {
    const api = this.target.api.sessions;
    if (!api || !turn.messageId || turn.sources) return;
    const once = () => this.bounded(api, turn.messageId);
    once()
      .catch(() => sleep(this.clock, SOURCES_RETRY_MS).then(once))
      .then((sources) => {
        const list = this.turns.turns;
        const i = list.lastIndexOf(turn);
        if (i < 0) return;
        list[i] = Object.freeze({ ...turn, sources });
        this.report('sources', turn.id, sources);
      }, () => undefined);
  }

  private async bounded(api: MessagesApi, messageId: string): Promise<readonly Source[]> {
    const controller = new AbortController();
    const limit = deadline(this.clock, SOURCES_READ_LIMIT_MS, () => (controller.abort(), new Error('sources read timed out')));
    try {
      return await Promise.race([this.fetch(api, messageId, controller.signal), limit.promise]);
    } finally {
      limit.clear();
    }
  }

  private async fetch(api: MessagesApi, messageId: string, signal: AbortSignal): Promise<readonly Source[]> {
    const { aiId } = this.target;
    const message = (await api.message(aiId, messageId, { signal })) as { reference_list?: unknown } | null;
    let sources = toSources(message?.reference_list);
    if (!recognized(sources) && api.references) {
      // E18 where it adds: its failure leaves what E17 said.
      const more = await Promise.resolve(api.references(aiId, { message_id: messageId }, { signal })).catch(() => null);
      const extra = toSources((more as { references?: unknown } | null)?.references);
      if (recognized(extra)) sources = extra;
    }
    return Object.freeze(sources.map((s) => Object.freeze(s)));
  }
}
