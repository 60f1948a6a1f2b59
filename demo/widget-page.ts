/**
 * The widget page of the demo: `<kb-voice-widget>` as an app would use it (the npm entry
 * `kb-voice/widget`, resolved to the built dist/ by package self-reference), with the robot and
 * language of the QA page's URL, and a log of the DOM events the element dispatches.
 */
import 'kb-voice/widget';
import type { KbVoiceWidgetEventMap } from 'kb-voice/widget';
import { TIMING_PHASES } from 'kb-voice';
import { readConfig } from './config.js';
import { byId, el } from './ui/dom.js';

const widget = document.querySelector('kb-voice-widget')!;
const log = byId<HTMLOListElement>('widget-events');
const started = performance.now();

const result = readConfig(window.location);
if ('problem' in result) {
  const box = byId('page-error');
  box.textContent = result.problem;
  box.hidden = false;
} else {
  widget.setAttribute('ai-id', result.config.aiId);
  widget.setAttribute('language', result.config.language);
}
byId<HTMLAnchorElement>('qa-link').search = window.location.search;
byId<HTMLInputElement>('dark').addEventListener('change', (event) => {
  widget.classList.toggle('dark', (event.target as HTMLInputElement).checked);
});
byId<HTMLInputElement>('push-to-talk').addEventListener('change', (event) => {
  widget.turnTaking = (event.target as HTMLInputElement).checked ? 'push-to-talk' : 'auto';
});

const describe: { [K in keyof KbVoiceWidgetEventMap]: (detail: KbVoiceWidgetEventMap[K]['detail']) => string } = {
  session: () => 'new VoiceSession (el.session)',
  state: ({ state, previous }) => `${previous.status} → ${state.status}`,
  turn: (turn) => `#${turn.id} ${turn.input}: “${turn.question}” → “${turn.answer}” (${turn.firstResponseMs === null ? 'no audio' : `${turn.firstResponseMs} ms`})`,
  transcript: (update) => (update.final ? `${update.role}: ${update.text}` : ''),
  mute: (muted) => (muted ? 'muted' : 'unmuted'),
  talking: (talking) => (talking ? 'talking (talk held)' : 'talk released'),
  error: (error) => `${error.code}: ${error.message}`,
  talk: ({ heard }) => (heard ? 'the hold was heard' : 'the hold was not heard (the widget says so)'),
  check: (result) => `Test my setup: ${result.overall} (microphone ${result.microphone.code}, network ${result.network.code}, service ${result.service.code})`,
  timing: ({ id, perceivedLatencyMs, timing }) =>
    perceivedLatencyMs === null ? '' : `#${id} heard after ${perceivedLatencyMs} ms: ${TIMING_PHASES.map((p) => `${p} ${timing[`${p}Ms`] ?? '–'}`).join(' + ')}`,
};
for (const type of Object.keys(describe) as Array<keyof KbVoiceWidgetEventMap>) {
  widget.addEventListener(type, (event: Event) => {
    const text = (describe[type] as (detail: unknown) => string)((event as CustomEvent).detail);
    if (!text) return;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    log.append(el('li', { 'data-testid': 'widget-event', 'data-type': type }, el('span', { class: 'rel' }, `${seconds} s`), el('span', {}, type), el('span', {}, text)));
    log.scrollTop = log.scrollHeight;
  });
}
document.body.dataset.ready = 'true';
