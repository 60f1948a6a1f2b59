import { VoiceSessionError } from '../client/errors.js';
import type { WidgetText } from './locale.js';
import type { WidgetMessageTable } from './messages.js';

/** A problem the widget finds itself: its attributes, which only the page's author can fix. */
export interface WidgetProblem {
  code: 'no_ai_id' | 'bad_relay_url' | 'bad_turn_taking';
  url?: string;
  /** The attribute's value as written (bad_turn_taking). */
  value?: string;
}

/**
 * The sentence for any error the widget meets (a VoiceSessionError, a local validation error, a
 * {@link WidgetProblem}, anything else) in the widget's language: what happened and what the visitor
 * can do about it.
 */
export function describeError(error: unknown, text: WidgetText): string {
  if (error instanceof VoiceSessionError || isCoded(error)) {
    if (error.code === 'rate_limited' && typeof (error as VoiceSessionError).retryAfterMs === 'number') {
      const seconds = Math.max(1, Math.ceil((error as VoiceSessionError).retryAfterMs! / 1000));
      return text.t('error.rate_limited.wait', { duration: text.seconds(seconds) });
    }
    if (error.code === 'validation_error') return text.t('error.validation');
    const key = `error.${error.code}` as keyof WidgetMessageTable;
    if (key in text.table) return text.t(key, { button: text.t('button.sound'), url: (error as WidgetProblem).url ?? '', value: (error as WidgetProblem).value ?? '' });
  }
  return text.t('error.unknown');
}

function isCoded(error: unknown): error is { code: string } {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}
