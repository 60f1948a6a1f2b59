import type { Reply } from './responses.js';

/**
 * Keys shared between the relay and its Node adapter only (not public API). A relay made by
 * `createRelay` answers Node requests through `[REPLY]` without building a web `Response`; a
 * request from the Node adapter hands over its already parsed URL through `[PARSED_URL]` and tells
 * that its caller went away through `[CALLER_GONE]` (no `AbortSignal` needed).
 */
export const REPLY = Symbol('kb-voice.relay.reply');
export const PARSED_URL = Symbol('kb-voice.relay.parsedUrl');
export const CALLER_GONE = Symbol('kb-voice.relay.callerGone');

export interface ReplyingRelay {
  [REPLY](request: Request): Promise<Reply>;
}

export const canReply = (relay: object): relay is ReplyingRelay => typeof (relay as Partial<ReplyingRelay>)[REPLY] === 'function';

/** The request's URL, parsed once. */
export function parsedUrl(request: Request): URL {
  const own = (request as { [PARSED_URL]?: () => URL })[PARSED_URL];
  return own ? own.call(request) : new URL(request.url);
}

/** Calls `listener` once when the caller of `request` goes away (its signal aborts). */
export function onCallerGone(request: Request, listener: () => void): void {
  const own = (request as { [CALLER_GONE]?: (l: () => void) => void })[CALLER_GONE];
  if (own) return own.call(request, listener);
  const signal = request.signal;
  if (signal.aborted) listener();
  else signal.addEventListener('abort', listener, { once: true });
}
