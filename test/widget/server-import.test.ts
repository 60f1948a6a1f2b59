import { describe, expect, it } from 'vitest';
import { defineKbVoiceWidget, KbVoiceWidget, WIDGET_TAG } from 'kb-voice/widget';

// Server-side rendering imports the widget too (Next.js, Nuxt, SvelteKit, Angular Universal):
// there is no DOM there, and nothing may throw.
describe('kb-voice/widget without a DOM (SSR)', () => {
  it('imports, exports the element class and registers nothing', () => {
    expect(typeof HTMLElement).toBe('undefined');
    expect(typeof KbVoiceWidget).toBe('function');
    expect(WIDGET_TAG).toBe('kb-voice-widget');
    expect(defineKbVoiceWidget()).toBe(false);
  });
});

