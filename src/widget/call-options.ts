import { createApiClient } from '../api/client.js';
import type { VoiceSessionOptions } from '../client/options.js';
import type { WidgetProblem } from './describe-error.js';

export type TurnTaking = NonNullable<VoiceSessionOptions['turnTaking']>;

/** The element's attributes that make a call, as written (null: absent). */
export interface CallAttributes {
  aiId: string | null;
  relayUrl: string | null;
  language: string | null;
  turnTaking: string | null;
}

/** `turn-taking` as written: its mode, null when absent or blank, `'invalid'` for any other value. */
export function readTurnTaking(attribute: string | null): TurnTaking | null | 'invalid' {
  const value = attribute?.trim();
  if (!value) return null;
  return value === 'auto' || value === 'push-to-talk' ? value : 'invalid';
}

/**
 * The options of a call's VoiceSession from the element's attributes over its `sessionOptions`
 * (`api` made from `relay-url` unless given there), or the problem with the attributes that only the
 * page's author can fix. `pageLang`: the page's `lang`, the language without the attribute.
 */
export function callOptions(
  attributes: CallAttributes, extra: Partial<Omit<VoiceSessionOptions, 'aiId'>>, pageLang: string, textOnly: boolean,
): VoiceSessionOptions | WidgetProblem {
  const aiId = attributes.aiId?.trim();
  if (!aiId) return { code: 'no_ai_id' };
  const relayUrl = attributes.relayUrl?.trim() || '/api/voice';
  const baseUrl = resolveUrl(relayUrl);
  if (!baseUrl) return { code: 'bad_relay_url', url: relayUrl };
  const turnTaking = readTurnTaking(attributes.turnTaking);
  if (turnTaking === 'invalid') return { code: 'bad_turn_taking', value: attributes.turnTaking!.trim() };
  const language = attributes.language?.trim() || pageLang || undefined;
  return {
    ...extra, aiId, api: extra.api ?? createApiClient({ baseUrl }), turnTaking: turnTaking ?? extra.turnTaking ?? 'auto',
    ...(language ? { language } : {}), ...(textOnly ? { microphone: false } : {}),
  };
}

/** `url` resolved against the page, or undefined when it is not a URL. */
function resolveUrl(url: string): string | undefined {
  try {
    return new URL(url, document.baseURI).toString();
  } catch {
    return undefined;
  }
}
