import { describe, expect, it } from 'vitest';
import { VoiceSessionError, type VoiceErrorCode } from 'kb-voice';
import { describeError } from '../../src/widget/describe-error.js';
import { uiLanguage, WidgetText } from '../../src/widget/locale.js';
import { columns, ENGLISH, LABEL_COLUMNS, type WidgetMessageTable } from '../../src/widget/messages.js';
import { JAPANESE } from '../../src/widget/messages-ja.js';

const TABLES = { en: ENGLISH, ja: JAPANESE };
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the message tables', () => {
  it('English and Japanese have the same keys, every string non-empty, with the same placeholders', () => {
    expect(Object.keys(JAPANESE).sort()).toEqual(Object.keys(ENGLISH).sort());
    for (const key of Object.keys(ENGLISH) as (keyof WidgetMessageTable)[]) {
      for (const [lang, table] of Object.entries(TABLES)) expect(table[key].trim(), `${lang} ${key}`).not.toBe('');
      expect(placeholders(JAPANESE[key]), key).toEqual(placeholders(ENGLISH[key]));
    }
  });

  it('the Japanese table is Japanese (no English sentence left untranslated)', () => {
    for (const key of Object.keys(ENGLISH) as (keyof WidgetMessageTable)[]) {
      expect(JAPANESE[key], key).not.toBe(ENGLISH[key]);
      expect(JAPANESE[key], key).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    }
  });

  it('short labels fit their documented widths in both languages', () => {
    expect(columns('通話を開始')).toBe(10);
    expect(columns('Start call')).toBe(10);
    for (const [key, max] of Object.entries(LABEL_COLUMNS) as [keyof WidgetMessageTable, number][]) {
      for (const [lang, table] of Object.entries(TABLES)) expect(columns(table[key]), `${lang} ${key}: "${table[key]}"`).toBeLessThanOrEqual(max);
    }
  });
});

describe('the UI language', () => {
  it('is the language attribute, then the page, then the browser; invalid tags are skipped', () => {
    expect(uiLanguage('ja', 'en', ['en-US'])).toBe('ja');
    expect(uiLanguage(null, 'ja-JP', ['en-US'])).toBe('ja-JP');
    expect(uiLanguage('', '', ['ja', 'en'])).toBe('ja');
    expect(uiLanguage('en_US', 'not a tag', ['fr-CA'])).toBe('fr-CA');
    expect(uiLanguage(undefined, undefined, [])).toBe('en');
  });

  it('picks the built-in table by the primary subtag, English for others, with the page\u2019s strings over it', () => {
    expect(new WidgetText('ja-JP').t('button.start')).toBe('通話を開始');
    expect(new WidgetText('en-GB').t('button.start')).toBe('Start call');
    const french = new WidgetText('fr', { 'button.start': 'Appeler', ...({ nope: 'ignored' } as object) });
    expect(french.builtIn).toBe('en');
    expect(french.t('button.start')).toBe('Appeler');
    expect(french.t('button.end')).toBe('End call');
    expect('nope' in french.table).toBe(false);
  });

  it('a page string\u2019s {constructor} or {toString} stays as written, and only real keys are taken (#46)', () => {
    const text = new WidgetText('en', { 'devices.unnamed': 'Mic {n} {constructor} {toString} {__proto__}', constructor: 'x' } as never);
    expect(text.t('devices.unnamed', { n: 2 })).toBe('Mic 2 {constructor} {toString} {__proto__}');
    expect(Object.hasOwn(text.table, 'constructor')).toBe(false);
  });

  it('formats numbers and times with Intl for the language', () => {
    expect(new WidgetText('en').latency(840)).toBe('840 ms');
    expect(new WidgetText('en').latency(1234)).toBe('1.2 sec');
    expect(new WidgetText('ja').latency(1234)).toBe('1.2 秒');
    expect(new WidgetText('de').latency(1234)).toBe('1,2 Sek.');
    expect(new WidgetText('en').seconds(3)).toBe('3 seconds');
    expect(new WidgetText('ja').seconds(3)).toBe('3 秒');
    expect(new WidgetText('en').t('devices.unnamed', { n: 1200 })).toBe('Device 1,200');
  });
});

describe('error sentences', () => {
  const codes: VoiceErrorCode[] = [
    'microphone_denied', 'microphone_unavailable', 'webrtc_unsupported', 'unauthorized', 'not_found', 'rate_limited',
    'service_unavailable', 'signaling_failed', 'connection_failed', 'connection_lost', 'session_reset', 'device_lost', 'device_unavailable',
    'not_supported', 'protocol_error', 'server_error', 'playback_blocked', 'not_connected', 'session_ended', 'no_session', 'report_failed',
  ];

  for (const lang of ['en', 'ja'] as const) {
    it(`every code has its own sentence in ${lang}, none the generic one, no placeholder left`, () => {
      const text = new WidgetText(lang);
      const generic = describeError(new Error('x'), text);
      for (const code of codes) {
        const sentence = describeError(new VoiceSessionError(code, 'm'), text);
        expect(sentence, code).not.toBe(generic);
        expect(sentence, code).not.toMatch(/\{\w+\}/);
      }
    });
  }

  it('says how long to wait when the service said so, in the UI language', () => {
    const busy = new VoiceSessionError('rate_limited', 'm', { retryAfterMs: 2500 });
    expect(describeError(busy, new WidgetText('en'))).toBe('The assistant is busy. Wait 3 seconds, then start the call again.');
    expect(describeError(busy, new WidgetText('ja'))).toBe('アシスタントが混み合っています。3 秒待ってから、もう一度通話を開始してください。');
  });

  it('names the button to press as the page named it, and the attribute the author must fix', () => {
    const text = new WidgetText('en', { 'button.sound': 'Turn sound on' });
    expect(describeError(new VoiceSessionError('playback_blocked', 'm'), text)).toBe('Your browser blocked the assistant\u2019s sound. Press \u201cTurn sound on\u201d to hear it.');
    expect(describeError({ code: 'bad_relay_url', url: 'http://[x' }, new WidgetText('ja'))).toContain('relay-url 属性（http://[x）');
    expect(describeError({ code: 'no_ai_id' }, new WidgetText('ja'))).toContain('ai-id 属性がありません');
  });
});
