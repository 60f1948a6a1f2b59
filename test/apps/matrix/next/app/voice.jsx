'use client';
// The client part: the widget element and, beside it, a call through the React hook (StrictMode is on:
// next.config.mjs). Both import on the server too (this module is server-rendered first); neither may
// touch a browser global while doing so.
import 'kb-voice/widget';
import { createApiClient } from 'kb-voice';
import { useVoiceSession } from 'kb-voice/react';
import { useMemo, useState } from 'react';

export default function Voice({ relay, ai, nonce }) {
  const api = useMemo(() => createApiClient({ baseUrl: relay }), [relay]);
  const voice = useVoiceSession({ aiId: ai, api, language: 'en', noiseSuppression: 'rnnoise', noiseModule: () => import('kb-voice/noise') });
  const [question, setQuestion] = useState('');
  const widgetOptions = useMemo(() => ({ noiseSuppression: 'rnnoise', noiseModule: () => import('kb-voice/noise') }), []);
  return (
    <>
      <section id="app">
        <kb-voice-widget relay-url={relay} ai-id={ai} language="en" nonce={nonce} ref={(el) => { if (el) el.sessionOptions = widgetOptions; }} />
      </section>
      <section data-testid="hook">
        <button data-testid="hook-start" onClick={() => voice.start()}>Start (hook)</button>
        <span data-testid="hook-status">{voice.status}</span>
        <span data-testid="hook-noise">{voice.noiseSuppression?.active ?? ''}</span>
        <form onSubmit={(e) => { e.preventDefault(); voice.sendText(question); setQuestion(''); }}>
          <input data-testid="hook-input" value={question} onChange={(e) => setQuestion(e.target.value)} />
          <button data-testid="hook-send" disabled={voice.status !== 'connected' || !question}>Ask</button>
        </form>
        <ol>{voice.turns.map((turn) => <li key={turn.messageId} data-testid="hook-answer">{turn.answer}</li>)}</ol>
        <button data-testid="hook-end" onClick={() => voice.end({ mode: 'immediate' })}>End (hook)</button>
      </section>
    </>
  );
}
