// Vite: the widget, and a call through the React hook under StrictMode (in `vite` dev, React's
// development build mounts, unmounts and remounts the component: the hook must keep one session).
// createElement rather than JSX: Vite then needs no React plugin.
import { StrictMode, createElement as h, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { createApiClient } from 'kb-voice';
import { useVoiceSession } from 'kb-voice/react';
import { mountWidget } from '../shared/widget-app.js';

mountWidget();

const params = new URLSearchParams(location.search);
const api = createApiClient({ baseUrl: params.get('relay') ?? '' });
const noise = params.get('noise') === 'rnnoise' ? { noiseSuppression: 'rnnoise', noiseModule: () => import('kb-voice/noise') } : {};

function HookCall() {
  const voice = useVoiceSession({ aiId: params.get('ai') ?? '', api, language: 'en', ...noise });
  const [question, setQuestion] = useState('');
  return h('section', { 'data-testid': 'hook' },
    h('button', { 'data-testid': 'hook-start', onClick: () => voice.start() }, 'Start (hook)'),
    h('span', { 'data-testid': 'hook-status' }, voice.status),
    h('span', { 'data-testid': 'hook-noise' }, voice.noiseSuppression?.active ?? ''),
    h('form', { onSubmit: (e) => { e.preventDefault(); voice.sendText(question); setQuestion(''); } },
      h('input', { 'data-testid': 'hook-input', value: question, onChange: (e) => setQuestion(e.target.value) }),
      h('button', { 'data-testid': 'hook-send', disabled: voice.status !== 'connected' || !question }, 'Ask')),
    h('ol', null, voice.turns.map((turn) => h('li', { key: turn.messageId, 'data-testid': 'hook-answer' }, turn.answer))),
    h('button', { 'data-testid': 'hook-end', onClick: () => voice.end({ mode: 'immediate' }) }, 'End (hook)'));
}

createRoot(document.getElementById('hook')).render(h(StrictMode, null, h(HookCall)));
