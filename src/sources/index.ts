/**
 * `kb-voice/sources`: answers with their sources, and ratings (docs/client.md, "Sources and
 * ratings"). Pass `sources: withSources()` to a VoiceSession; the widget does it for you.
 */
import type { SourcesFeature } from '../client/sources/api.js';
import { Ratings } from '../client/sources/rating.js';
import { SourceReader } from '../client/sources/reader.js';

/** The `sources` option of VoiceSession: `Turn.sources` read after each turn, and `session.rate()`. */
export function withSources(): SourcesFeature {
  return (host) => {
    const reader = new SourceReader(host.target, host.clock, host.turns, host.report);
    const ratings = new Ratings(host.target, () => host.turns.turns, host.sessionId);
    return { read: (turn) => reader.read(turn), rate: (turnId, rating) => ratings.rate(turnId, rating) };
  };
}

export { toSource, toSources, type Source } from '../client/sources/normalize.js';
export { SourceReader, SOURCES_READ_LIMIT_MS, SOURCES_RETRY_MS } from '../client/sources/reader.js';
export { Ratings, MAX_FEEDBACK_CHARS } from '../client/sources/rating.js';
export type { MessagesApi, SourcesEffect, SourcesFeature, SourcesHost, TurnRating, TurnStore } from '../client/sources/api.js';
