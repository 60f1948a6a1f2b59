// The page code every bundled app of the matrix runs (Vite, webpack): the widget, pointed at the relay
// the test started (`?relay=`, `?ai=`), with rnnoise when the app asks for it (`?noise=rnnoise`), as an
// app's own code would do it. Plain JavaScript: each bundler takes it as it is, without a TypeScript loader.
import 'kb-voice/widget';

/** Mounts <kb-voice-widget> in #app; `extra` are more VoiceSession options (e.g. the telemetry's `api`). */
export function mountWidget(extra = {}) {
  const params = new URLSearchParams(location.search);
  const el = document.createElement('kb-voice-widget');
  el.setAttribute('relay-url', params.get('relay') ?? '');
  el.setAttribute('ai-id', params.get('ai') ?? '');
  el.setAttribute('language', 'en');
  el.sessionOptions = {
    ...(params.get('noise') === 'rnnoise' ? { noiseSuppression: 'rnnoise', noiseModule: () => import('kb-voice/noise') } : {}),
    ...extra,
  };
  document.getElementById('app').append(el);
  return el;
}
