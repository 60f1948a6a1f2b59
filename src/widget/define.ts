import { KbVoiceWidget } from './element.js';

/** The element's tag name. */
export const WIDGET_TAG = 'kb-voice-widget';

/**
 * Registers `<kb-voice-widget>` unless the tag is taken; returns whether it registered. Safe to
 * run any number of times, from several copies of the library (an npm import and the one-file
 * build on the same page: the first wins), and on a server, where it does nothing.
 */
export function defineKbVoiceWidget(): boolean {
  const registry = typeof customElements === 'undefined' ? undefined : customElements;
  if (!registry || registry.get(WIDGET_TAG)) return false;
  registry.define(WIDGET_TAG, KbVoiceWidget);
  return true;
}
