// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../src/widget/index.js';
import type { KbVoiceWidget } from '../../src/widget/index.js';
import { VoiceVisualizer, visualizerMarkup } from '../../src/widget/visualizer.js';

// The widget's words and controls without a call (no network, no WebRTC): language choice,
// the page's own strings, mute before the call, and the visualizer's drawing rules.

afterEach(() => {
  document.body.replaceChildren();
  document.documentElement.lang = '';
  vi.restoreAllMocks();
});

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function mount(attributes: Record<string, string> = {}): Promise<{ el: KbVoiceWidget; get: (testId: string) => HTMLElement }> {
  const el = document.createElement('kb-voice-widget');
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  document.body.append(el);
  await flush();
  return { el, get: (testId) => el.shadowRoot!.querySelector<HTMLElement>(`[data-testid="${testId}"]`)! };
}

describe('<kb-voice-widget> words', () => {
  it('speaks Japanese with language="ja", and English again when the attribute changes', async () => {
    const { el, get } = await mount({ language: 'ja' });
    expect(get('call-start').textContent).toBe('通話を開始');
    expect(get('call-status').textContent).toBe('待機中');
    expect(get('call-status').dataset.status).toBe('idle'); // the contract's words, whatever the language
    expect(get('text-input').getAttribute('aria-label')).toBe('質問を入力');
    expect(el.shadowRoot!.querySelector('.panel')!.getAttribute('lang')).toBe('ja');
    expect(el.uiLanguage).toBe('ja');
    el.setAttribute('language', 'en');
    await flush();
    expect(get('call-start').textContent).toBe('Start call');
    expect(get('call-status').textContent).toBe('idle');
  });

  it('follows the page\u2019s lang without the attribute, also when the page changes it', async () => {
    document.documentElement.lang = 'ja';
    const { get } = await mount();
    expect(get('call-end').textContent).toBe('通話を終了');
    document.documentElement.lang = 'en';
    await flush();
    expect(get('call-end').textContent).toBe('End call');
  });

  it('falls back to the browser\u2019s languages', async () => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['ja-JP', 'en']);
    const { get } = await mount();
    expect(get('mute-toggle').textContent).toBe('ミュート');
  });

  it('takes the page\u2019s own strings over the built-in ones, at once and in error sentences', async () => {
    const { el, get } = await mount({ language: 'ja' });
    el.messages = { 'button.start': '話しかける', 'error.no_ai_id': 'ID がありません' };
    await flush();
    expect(get('call-start').textContent).toBe('話しかける');
    expect(get('call-end').textContent).toBe('通話を終了');
    await el.start(); // no ai-id attribute
    await flush();
    expect(get('error').textContent).toBe('ID がありません');
    expect(get('error').hidden).toBe(false);
    el.setAttribute('language', 'en');
    await flush();
    expect(get('error').hidden).toBe(true); // an attribute change clears the complaint about attributes
  });

  it('explains a missing ai-id in the UI language', async () => {
    const { el, get } = await mount({ language: 'ja' });
    await el.start();
    await flush();
    expect(get('error').textContent).toContain('ai-id 属性がありません');
  });
});

describe('<kb-voice-widget> mute before a call', () => {
  it('is usable before the call, as in the React hook: the choice shows and carries into the call', async () => {
    const { get } = await mount({ language: 'en' });
    const mute = get('mute-toggle') as HTMLButtonElement;
    expect(mute.disabled).toBe(false);
    mute.click();
    await flush();
    expect(mute.getAttribute('aria-pressed')).toBe('true');
    expect(get('mic-status').textContent).toBe('Microphone muted');
    mute.click();
    await flush();
    expect(mute.getAttribute('aria-pressed')).toBe('false');
  });
});

describe('the visualizer', () => {
  function visualizer() {
    const host = document.createElement('div');
    host.innerHTML = visualizerMarkup();
    document.body.append(host);
    const root = host.firstElementChild as HTMLElement;
    const frames: FrameRequestCallback[] = [];
    vi.spyOn(globalThis, 'requestAnimationFrame').mockImplementation((callback) => frames.push(callback));
    const bars = (voice: string) => [...root.querySelectorAll<HTMLElement>(`[data-voice="${voice}"] [part="visualizer-bar"]`)].map((bar) => bar.style.transform);
    const runFrames = () => frames.splice(0).forEach((frame) => frame(0));
    return { root, frames, bars, runFrames, v: new VoiceVisualizer(root) };
  }

  it('draws nothing outside a call, one frame per level event during one, and has no loop of its own', () => {
    const t = visualizer();
    t.v.push({ input: 0.9, output: 0.9 });
    expect(t.frames).toHaveLength(0);
    t.v.setLive(true);
    t.v.push({ input: 0.8, output: 0 });
    t.v.push({ input: 0.6, output: 0 }); // before the frame: one frame still
    expect(t.frames).toHaveLength(1);
    t.runFrames();
    expect(t.frames).toHaveLength(0); // a frame does not ask for the next
    expect(t.bars('caller')[2]).toBe('scaleY(0.6)'); // newest in the middle
    expect(t.bars('caller')[3]).toBe('scaleY(0.8)'); // one event older next to it
    expect(t.root.querySelector<HTMLElement>('[data-voice="caller"]')!.dataset.speaking).toBe('true');
    expect(t.bars('assistant')).toEqual(Array(5).fill('scaleY(0.12)'));
    t.v.setLive(false);
    t.runFrames();
    expect(t.bars('caller')).toEqual(Array(5).fill('scaleY(0.12)')); // at rest after the call
  });

  it('stays still under prefers-reduced-motion, marking who speaks instead', () => {
    vi.spyOn(window, 'matchMedia').mockImplementation((query: string) => ({ matches: query.includes('reduce'), media: query } as MediaQueryList));
    const t = visualizer();
    t.v.setLive(true);
    t.v.push({ input: 0, output: 0.9 });
    t.runFrames();
    expect(t.bars('assistant')).toEqual(Array(5).fill('scaleY(0.12)'));
    expect(t.root.querySelector<HTMLElement>('[data-voice="assistant"]')!.dataset.speaking).toBe('true');
  });
});
