// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import '../../src/widget/index.js';
import type { KbVoiceWidget } from '../../src/widget/index.js';
import { FakeClock, ScriptedService } from '../../src/testing/index.js';

// The widget's "listening" cue (issue 48): shown from connected until the caller speaks or asks, so
// the caller knows when to speak where the service does not take what was said while connecting.

const mounted: KbVoiceWidget[] = [];
afterEach(async () => {
  for (const el of mounted.splice(0)) await el.end();
  document.body.replaceChildren();
});
const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function widget(language: string) {
  const scripted = new ScriptedService({ clock: new FakeClock() });
  const el = document.createElement('kb-voice-widget');
  el.setAttribute('ai-id', 'robot-1');
  el.setAttribute('language', language);
  el.sessionOptions = { ...scripted.sessionOptions };
  document.body.append(el);
  mounted.push(el);
  await flush();
  return { el, scripted, cue: () => el.shadowRoot!.querySelector<HTMLElement>('[data-testid="listening"]')! };
}

describe('listening cue', () => {
  it('appears at connected, in words, and goes once the caller speaks', async () => {
    const t = await widget('en');
    expect(t.cue().hidden).toBe(true);
    await t.el.start();
    await flush();
    expect(t.cue().hidden).toBe(false);
    expect(t.cue().textContent).toBe('Listening: go ahead and ask your question.');
    expect(t.cue().getAttribute('role')).toBe('status');
    t.scripted.userSays('How long is the warranty?');
    await flush();
    expect(t.cue().hidden).toBe(true);
    t.scripted.reply('Two years.', { question: 'How long is the warranty?' });
    await flush();
    expect(t.cue().hidden).toBe(true); // a question was asked: no cue any more
  });

  it('in Japanese', async () => {
    const t = await widget('ja');
    await t.el.start();
    await flush();
    expect(t.cue().textContent).toBe('聞いています。どうぞご質問ください。');
    expect(t.cue().hidden).toBe(false);
  });
});
