/**
 * A React app as a user would write it with kb-voice/react (Vite, StrictMode on), for
 * test/e2e/react.spec.ts. It imports the built package by name and reaches the service only
 * through the relay on its own origin (`/api/voice`). `?ai_id=` names the robot.
 */
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { createApiClient, type SessionReport } from 'kb-voice';
import { useVoiceSession } from 'kb-voice/react';

const api = createApiClient({ baseUrl: new URL('/api/voice', location.origin).toString() });
const aiId = new URLSearchParams(location.search).get('ai_id') ?? '';

function App() {
  const voice = useVoiceSession({ aiId, api, language: 'en' });
  const [question, setQuestion] = useState('');
  const [report, setReport] = useState<SessionReport | null>(null);
  const [captions, setCaptions] = useState(0);
  const active = voice.status === 'connecting' || voice.status === 'connected' || voice.status === 'reconnecting';
  if (voice.live?.assistant && captions === 0) setCaptions(1); // the page saw a live caption at least once

  return (
    <main>
      <button data-testid="call-start" disabled={active} onClick={() => voice.start()}>Start call</button>
      <button data-testid="call-end" disabled={!active} onClick={() => voice.end()}>End call</button>
      <button data-testid="mute-toggle" aria-pressed={voice.muted} onClick={() => (voice.muted ? voice.unmute() : voice.mute())}>
        {voice.muted ? 'Unmute' : 'Mute'}
      </button>
      <p>
        Status <span data-testid="call-status">{voice.status}</span>, microphone{' '}
        <span data-testid="mic-status">{voice.muted ? 'muted' : 'live'}</span>
        {voice.error && <span data-testid="error"> — {voice.error.code}: {voice.error.message}</span>}
      </p>
      <section aria-live="polite" data-captions-seen={captions}>
        <p data-testid="caption-user">{voice.live?.user}</p>
        <p data-testid="caption">{voice.live?.assistant}</p>
      </section>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          voice.sendText(question);
          setQuestion('');
        }}
      >
        <input data-testid="text-input" value={question} onChange={(e) => setQuestion(e.target.value)} />
        <button data-testid="text-send" disabled={voice.status !== 'connected' || !question}>Ask</button>
      </form>
      <ol>
        {voice.turns.map((turn) => (
          <li key={turn.messageId} data-testid="turn" data-input={turn.input}>
            <span data-testid="turn-question">{turn.question}</span> → <span data-testid="turn-answer">{turn.answer}</span>{' '}
            ({turn.firstResponseMs === null ? 'no answer audio' : `${turn.firstResponseMs} ms`})
          </li>
        ))}
      </ol>
      <button data-testid="report" disabled={!voice.sessionId} onClick={() => voice.report().then(setReport, () => setReport(null))}>
        Report
      </button>
      {report && (
        <p data-testid="report-summary" data-turns={report.turns.length} data-audio={report.audio.length} data-usage-turns={report.usage?.turn_count ?? 0}>
          {report.sessionId}: {report.turns.length} turn(s), {report.audio.length} audio segment(s)
        </p>
      )}
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
