// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import '../../src/widget/index.js';
import type { KbVoiceWidget } from '../../src/widget/index.js';
import { COMMIT_TAIL_MS, HEARD_WITHIN_MS } from '../../src/client/push-to-talk.js';
import { FakeClock, ScriptedService } from '../../src/testing/index.js';

// The widget's push-to-talk (issue 35) on kb-voice/testing's scripted service and fake time: the
// turn-taking attribute becomes the session's option, and the talk button held by pointer or key
// makes the session talk (the microphone track opens) and, let go, commits the utterance.

const mounted: KbVoiceWidget[] = [];
afterEach(async () => {
  for (const el of mounted.splice(0)) await el.end();
  document.body.replaceChildren();
});

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function call(attributes: Record<string, string> = { 'turn-taking': 'push-to-talk' }) {
  const clock = new FakeClock();
  const scripted = new ScriptedService({ clock });
  const el = document.createElement('kb-voice-widget');
  el.setAttribute('ai-id', 'robot-1');
  el.setAttribute('language', 'en');
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  el.sessionOptions = { ...scripted.sessionOptions };
  document.body.append(el);
  mounted.push(el);
  const get = <T extends HTMLElement = HTMLElement>(testId: string) => el.shadowRoot!.querySelector<T>(`[data-testid="${testId}"]`)!;
  const talk = () => get<HTMLButtonElement>('talk');
  const talked: boolean[] = [];
  el.addEventListener('talking', (event) => talked.push(event.detail));
  await flush();
  return { clock, scripted, el, get, talk, talked, sent: () => scripted.sent.map((e) => e.type), track: () => scripted.tracks[0]! };
}

async function connected(attributes?: Record<string, string>) {
  const t = await call(attributes);
  await t.el.start();
  await flush();
  expect(t.get('call-status').dataset.status).toBe('connected');
  return t;
}

const key = (target: EventTarget, type: 'keydown' | 'keyup', k: string, repeat = false) =>
  target.dispatchEvent(new KeyboardEvent(type, { key: k, repeat, bubbles: true, composed: true, cancelable: true }));
const pointer = (target: EventTarget, type: string) =>
  target.dispatchEvent(new PointerEvent(type, { pointerId: 1, button: 0, bubbles: true, composed: true, cancelable: true }));

describe('a hold the service did not hear (#46)', () => {
  it('the hint says "I didn\u2019t catch that" (announced politely), the talk event says heard: false, and the next hold brings the hint back', async () => {
    const t = await connected();
    const outcomes: unknown[] = [];
    t.el.addEventListener('talk', (event) => outcomes.push(event.detail));
    const hint = t.get('talk-hint');
    const usual = hint.textContent;
    expect(hint.getAttribute('aria-live')).toBe('polite');
    pointer(t.talk(), 'pointerdown');
    pointer(t.talk(), 'pointerup');
    await t.clock.advance(COMMIT_TAIL_MS + HEARD_WITHIN_MS);
    await flush();
    expect(outcomes).toEqual([{ heard: false }]);
    expect(hint.textContent).toBe('I didn\u2019t catch that. Hold the button while you speak, then release it.');
    pointer(t.talk(), 'pointerdown');
    await flush();
    expect(hint.textContent).toBe(usual);
    pointer(t.talk(), 'pointerup');
  });
});

describe('turn-taking', () => {
  it('the attribute is the session\u2019s option: push-to-talk opens nothing until talk is held', async () => {
    const t = await call();
    expect(t.el.turnTaking).toBe('push-to-talk');
    // Offered before the call, usable once it is connected.
    expect(t.talk().hidden).toBe(false);
    expect(t.talk().disabled).toBe(true);
    expect(t.talk().textContent).toBe('Hold to talk');
    expect(t.get('error').hidden).toBe(true);
    await t.el.start();
    await flush();
    expect(t.talk().disabled).toBe(false);
    expect(t.track().enabled).toBe(false);
    t.el.session!.talk(true); // would throw not_supported in auto turn-taking
    expect(t.track().enabled).toBe(true);
  });

  it('without the attribute (or with turn-taking="auto") there is no talk button and the microphone is live', async () => {
    for (const attributes of [{}, { 'turn-taking': 'auto' }] as Record<string, string>[]) {
      const t = await connected(attributes);
      expect(t.el.turnTaking).toBe('auto');
      expect(t.talk().hidden).toBe(true);
      expect(t.track().enabled).toBe(true);
      expect(() => t.el.session!.talk(true)).toThrow(expect.objectContaining({ code: 'not_supported' }));
    }
  });

  it('the property reflects the attribute; sessionOptions.turnTaking applies without it', async () => {
    const t = await call({});
    t.el.sessionOptions = { ...t.el.sessionOptions, turnTaking: 'push-to-talk' };
    expect(t.el.turnTaking).toBe('push-to-talk');
    t.el.turnTaking = 'auto';
    expect(t.el.getAttribute('turn-taking')).toBe('auto');
    expect(t.el.turnTaking).toBe('auto');
    await flush();
    expect(t.talk().hidden).toBe(true);
    t.el.turnTaking = 'push-to-talk';
    await flush();
    expect(t.talk().hidden).toBe(false);
  });

  it('a value other than auto or push-to-talk stops the start with a sentence naming it', async () => {
    const t = await call({ 'turn-taking': 'walkie-talkie', language: 'ja' });
    await t.el.start();
    await flush();
    expect(t.el.session).toBeUndefined();
    expect(t.get('error').textContent).toContain('turn-taking 属性（walkie-talkie）');
    t.el.setAttribute('language', 'en');
    t.el.setAttribute('turn-taking', 'push-to-talk');
    await flush();
    expect(t.get('error').hidden).toBe(true);
    await t.el.start();
    expect(t.el.snapshot?.status).toBe('connected');
  });
});

describe('the talk button', () => {
  it('pointer: held, the session talks and the button says so; let go, the utterance is committed', async () => {
    const t = await connected();
    pointer(t.talk(), 'pointerdown');
    expect(t.el.snapshot?.talking).toBe(true);
    expect(t.track().enabled).toBe(true);
    await flush();
    expect(t.talk().getAttribute('aria-pressed')).toBe('true');
    expect(t.get('mic-status').textContent).toBe('Listening to you');
    pointer(t.talk(), 'pointerup');
    expect(t.el.snapshot?.talking).toBe(false);
    expect(t.track().enabled).toBe(false);
    await flush();
    expect(t.talk().getAttribute('aria-pressed')).toBe('false');
    expect(t.get('mic-status').textContent).toBe('Microphone');
    await t.clock.advance(COMMIT_TAIL_MS);
    expect(t.sent()).toEqual(['input.commit']);
    expect(t.talked).toEqual([true, false]);
  });

  it('pointer: cancel, a lost capture or leaving releases too; another mouse button does nothing', async () => {
    const t = await connected();
    for (const end of ['pointercancel', 'lostpointercapture', 'pointerleave']) {
      pointer(t.talk(), 'pointerdown');
      expect(t.el.snapshot?.talking, end).toBe(true);
      pointer(t.talk(), end);
      expect(t.el.snapshot?.talking, end).toBe(false);
    }
    t.talk().dispatchEvent(new PointerEvent('pointerdown', { pointerId: 1, button: 2, bubbles: true }));
    expect(t.el.snapshot?.talking).toBe(false);
  });

  it('keyboard: Space or Enter held on the button talks, repeats change nothing, the key\u2019s release commits', async () => {
    const t = await connected();
    for (const k of [' ', 'Enter']) {
      t.talk().focus();
      expect(key(t.talk(), 'keydown', k)).toBe(false); // default prevented: no click, no scrolling
      expect(t.el.snapshot?.talking, k).toBe(true);
      key(t.talk(), 'keydown', k, true);
      key(t.talk(), 'keyup', k === ' ' ? 'Enter' : ' '); // another key's release is not this hold's
      expect(t.el.snapshot?.talking, k).toBe(true);
      key(t.talk(), 'keyup', k);
      expect(t.el.snapshot?.talking, k).toBe(false);
      await t.clock.advance(COMMIT_TAIL_MS);
    }
    expect(t.sent()).toEqual(['input.commit', 'input.commit']);
    expect(t.talked).toEqual([true, false, true, false]);
  });

  it('keyboard: Space talks anywhere in the widget except where Space has its own job (the text input, the other buttons)', async () => {
    const t = await connected();
    const captions = t.el.shadowRoot!.querySelector<HTMLElement>('.captions')!;
    key(captions, 'keydown', ' ');
    expect(t.el.snapshot?.talking).toBe(true);
    key(captions, 'keyup', ' ');
    expect(t.el.snapshot?.talking).toBe(false);
    key(captions, 'keydown', 'Enter'); // Enter only on the button itself
    for (const other of ['text-input', 'mute-toggle', 'call-end']) {
      expect(key(t.get(other), 'keydown', ' '), other).toBe(true); // not prevented: typing a space, pressing that button
      expect(t.el.snapshot?.talking, other).toBe(false);
    }
  });

  it('keyboard: the focus leaving the widget while the key is held releases (its keyup would never come)', async () => {
    const t = await connected();
    const outside = document.body.appendChild(Object.assign(document.createElement('button'), { textContent: 'outside' }));
    t.talk().focus();
    key(t.talk(), 'keydown', ' ');
    expect(t.el.snapshot?.talking).toBe(true);
    outside.focus();
    expect(t.el.snapshot?.talking).toBe(false);
  });

  it('the call ending while talk is held: the button is disabled, nothing talks, the next press waits for a call', async () => {
    const t = await connected();
    pointer(t.talk(), 'pointerdown');
    expect(t.el.snapshot?.talking).toBe(true);
    await t.el.end();
    await flush();
    expect(t.el.snapshot?.talking).toBe(false);
    expect(t.talk().disabled).toBe(true);
    expect(t.talk().getAttribute('aria-pressed')).toBe('false');
    pointer(t.talk(), 'pointerup');
    key(t.talk(), 'keydown', ' ');
    expect(t.talked).toEqual([true, false]);
    expect(t.get('error').hidden).toBe(true);
  });
});

describe('the talk button\u2019s words', () => {
  it('Japanese: the label and the hint that says how', async () => {
    const t = await call({ 'turn-taking': 'push-to-talk', language: 'ja' });
    expect(t.talk().textContent).toBe('押して話す');
    const hint = t.el.shadowRoot!.getElementById(t.talk().getAttribute('aria-describedby')!)!;
    expect(hint.hidden).toBe(false);
    expect(hint.textContent).toContain('スペースキー');
  });
});
