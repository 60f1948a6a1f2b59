/**
 * `kb-voice/sources`: answers with their sources, and ratings (docs/client.md, "Sources and
 * ratings"). Pass `sources: withSources()` to a VoiceSession; the widget does it for you.
 */
import { systemClock } from '../clock.js';
import type { SourcesFeature } from '../client/sources/api.js';
import { Ratings } from '../client/sources/rating.js';
import { SourceReader } from '../client/sources/reader.js';

/** The `sources` option of VoiceSession: `Turn.sources` read after each turn, and `session.rate()`. */
export function withSources(): SourcesFeature {
  return (session, target, turns, report) => {
    const reader = new SourceReader(target, target.clock ?? systemClock, turns, report);
    const ratings = new Ratings(target, () => turns.turns, () => session.sessionId);
    session.on('turn', (turn) => reader.read(turn));
    return { rate: (turnId, rating) => ratings.rate(turnId, rating) };
  };
}

export { toSource, toSources, type Source } from '../client/sources/normalize.js';
export { SourceReader, SOURCES_READ_LIMIT_MS, SOURCES_RETRY_MS } from '../client/sources/reader.js';
export { Ratings, MAX_FEEDBACK_CHARS } from '../client/sources/rating.js';
export type { MessagesApi, SourcesEffect, SourcesFeature, SourcesSession, SourcesTarget, TurnRating, TurnStore } from '../client/sources/api.js';
