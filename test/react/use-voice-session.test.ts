// @vitest-environment happy-dom
import { act, createElement, StrictMode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { VoiceSessionOptions } from '../../src/client/index.js';
import { useVoiceSession, type VoiceSessionControls } from '../../src/react/index.js';
import { withSources } from '../../src/sources/index.js';
import { FakeClock, ScriptedService, type ScriptedServiceOptions, type SignalingFailure } from '../../src/testing/index.js';

// useVoiceSession with kb-voice/testing's scripted service in a DOM (happy-dom): StrictMode's
// double mount, unmount mid-call, start after end, every error code, mute, and no re-render from
// audio levels. No WebRTC, no network.

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const roots: Root[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await act(async () => root.unmount());
});

function render(options: () => VoiceSessionOptions, strict = true) {
  const seen: VoiceSessionControls[] = [];
  let renders = 0;
  function Widget() {
    renders++;
    const voice = useVoiceSession(options());
    seen.push(voice);
    return createElement('p', { 'data-status': voice.status }, voice.status);
  }
  const container = document.createElement('div');
  document.body.appendChild(container);
  const root = createRoot(container);
  roots.push(root);
  const tree = createElement(Widget);
  act(() => root.render(strict ? createElement(StrictMode, null, tree) : tree));
  return {
    root,
    container,
    get voice() {
      return seen.at(-1)!;
    },
    get renders() {
      return renders;
    },
  };
}

function scriptedCall(service: ScriptedServiceOptions = {}, extra: Partial<VoiceSessionOptions> = {}) {
  const scripted = new ScriptedService(service);
  const ui = render(() => ({ aiId: 'robot-1', ...scripted.sessionOptions, ...extra }));
  return { scripted, ui };
}

describe('useVoiceSession', () => {
  it('StrictMode double mount: one call, started once, not ended by the simulated remount', async () => {
    const { scripted, ui } = scriptedCall();
    expect(ui.voice.status).toBe('idle');
    await act(() => ui.voice.start());
    expect(ui.voice.status).toBe('connected');
    expect(scripted.offers).toHaveLength(1);
    expect(ui.container.textContent).toBe('connected');
    await act(async () => undefined); // microtasks after the effects' double run
    expect(ui.voice.status).toBe('connected');
    expect(scripted.tracks[0]!.readyState).toBe('live');
  });

  it('unmounting mid-call ends the call and releases the microphone', async () => {
    const { scripted, ui } = scriptedCall();
    await act(() => ui.voice.start());
    const session = ui.voice.session!;
    await act(async () => ui.root.unmount());
    roots.splice(roots.indexOf(ui.root), 1);
    // Unmounting starts end(); the call is over once the session says so.
    if (session.state.status !== 'ended') await new Promise<void>((resolve) => session.on('state', (st) => st.status === 'ended' && resolve()));
    expect(session.state.status).toBe('ended');
    expect(scripted.tracks[0]!.readyState).toBe('ended');
  });

  it('unmounting while connecting stops the attempt', async () => {
    const { scripted, ui } = scriptedCall();
    const release = scripted.holdSignaling();
    let started!: Promise<void>;
    act(() => {
      started = ui.voice.start();
    });
    expect(ui.voice.status).toBe('connecting');
    const session = ui.voice.session!;
    await act(async () => ui.root.unmount());
    roots.splice(roots.indexOf(ui.root), 1);
    release();
    await started;
    expect(session.state.status).toBe('ended');
  });

  it('start after end makes a new call (new session), with the turns of the new call only', async () => {
    const { scripted, ui } = scriptedCall({ answer: () => 'Two years.' });
    await act(() => ui.voice.start());
    await act(async () => ui.voice.sendText('How long is the warranty?'));
    expect(ui.voice.turns.map((t) => t.answer)).toEqual(['Two years.']);
    const first = ui.voice.session;
    await act(() => ui.voice.end());
    expect(ui.voice.status).toBe('ended');
    await act(() => ui.voice.start());
    expect(ui.voice.status).toBe('connected');
    expect(ui.voice.session).not.toBe(first);
    expect(scripted.offers).toHaveLength(2);
    expect(scripted.offers[1]!.session_id).toBeUndefined();
    expect(ui.voice.sessionId).toBe('scripted-session-2');
    expect(ui.voice.turns).toEqual([]);
  });

  it('turns carry their sources in the snapshot, and rate() works after the call ended', async () => {
    const ref = { title: 'warranty.txt', file_id: 'f1', content: 'Two years.' };
    const { scripted, ui } = scriptedCall({ answer: () => 'Two years.', sources: () => [ref] }, { sources: withSources() });
    await act(() => ui.voice.start());
    await act(async () => ui.voice.sendText('How long is the warranty?'));
    await act(async () => undefined);
    expect(ui.voice.turns[0]!.sources).toEqual([{ title: 'warranty.txt', fileId: 'f1', snippet: 'Two years.', raw: ref }]);
    await act(() => ui.voice.end());
    await act(() => ui.voice.rate(1, { rating: -1, feedback: 'Wrong' }));
    expect(scripted.api.ratings.map((r) => [r.query.rating, r.query.source, r.body?.feedback_content])).toEqual([[-1, 'widget', 'Wrong']]);
  });

  it('rate() before any call rejects with not_connected', async () => {
    const { ui } = scriptedCall();
    await expect(ui.voice.rate(1, { rating: 1 })).rejects.toMatchObject({ code: 'not_connected' });
  });

  const failures: Array<[string, (s: ScriptedService) => void, string]> = [
    ...([
      [{ status: 401 }, 'unauthorized'], [{ status: 403 }, 'unauthorized'], [{ status: 404 }, 'not_found'],
      [{ status: 429, retryAfterSeconds: 2 }, 'rate_limited'], [{ status: 503 }, 'service_unavailable'],
      [{ network: true }, 'service_unavailable'], [{ status: 400 }, 'signaling_failed'],
    ] as Array<[SignalingFailure, string]>).map(([f, code]): [string, (s: ScriptedService) => void, string] => [JSON.stringify(f), (s) => s.failSignaling(f), code]),
    ['microphone denied', (s) => s.failMicrophone('NotAllowedError'), 'microphone_denied'],
    ['no microphone', (s) => s.failMicrophone('NotFoundError'), 'microphone_unavailable'],
  ];
  for (const [name, fail, code] of failures) {
    it(`shows ${code} (${name}) as state and error, with no unhandled rejection`, async () => {
      const { scripted, ui } = scriptedCall();
      fail(scripted);
      await act(() => ui.voice.start()); // resolves: the failure is in the snapshot
      expect(ui.voice.status).toBe('failed');
      expect(ui.voice.error?.code).toBe(code);
      expect(ui.container.textContent).toBe('failed');
    });
  }

  it('shows webrtc_unsupported when the default transport has no WebRTC, before the microphone', async () => {
    const scripted = new ScriptedService();
    const { transport: _none, ...options } = scripted.sessionOptions;
    const ui = render(() => ({ aiId: 'robot-1', ...options }));
    await act(() => ui.voice.start());
    expect(ui.voice.error?.code).toBe('webrtc_unsupported');
    expect(scripted.tracks).toHaveLength(0);
  });

  it('shows mute toggles, and a mute chosen before the call applies to it', async () => {
    const { scripted, ui } = scriptedCall();
    act(() => ui.voice.mute());
    expect(ui.voice.muted).toBe(true);
    await act(() => ui.voice.start());
    expect(ui.voice.muted).toBe(true);
    expect(scripted.tracks[0]!.enabled).toBe(false);
    act(() => ui.voice.unmute());
    expect(ui.voice.muted).toBe(false);
    expect(scripted.tracks[0]!.enabled).toBe(true);
  });

  it('shows live captions while a turn runs', async () => {
    const { scripted, ui } = scriptedCall();
    await act(() => ui.voice.start());
    act(() => {
      scripted.userSays('Opening hours?');
      scripted.send({ type: 'transcript.delta', turn_id: 1, role: 'assistant', delta: 'Nine to five.' });
    });
    expect(ui.voice.live).toEqual({ turnId: 1, user: 'Opening hours?', assistant: 'Nine to five.' });
  });

  it('audio levels never re-render the component', async () => {
    const { ui } = scriptedCall({}, { levelMeter: () => ({ read: () => Math.random(), close: () => undefined }) });
    await act(() => ui.voice.start());
    let levels = 0;
    const threeLevels = new Promise<void>((resolve) => ui.voice.session!.on('level', () => ++levels === 3 && resolve()));
    const before = ui.renders;
    await act(() => threeLevels);
    expect(levels).toBeGreaterThan(1);
    expect(ui.renders).toBe(before);
  });

  it('sendText before a call throws not_connected; report before a call rejects with it', async () => {
    const { ui } = scriptedCall();
    expect(() => ui.voice.sendText('hi')).toThrow(expect.objectContaining({ code: 'not_connected' }));
    await expect(ui.voice.report()).rejects.toMatchObject({ code: 'not_connected' });
  });

  it("shows 'ending' while the assistant finishes its sentence, then 'ended'", async () => {
    const clock = new FakeClock();
    const { scripted, ui } = scriptedCall({ clock });
    await act(() => ui.voice.start());
    act(() => scripted.send({ type: 'output.speech_started', turn_id: 1 }));
    let ending!: Promise<void>;
    act(() => {
      ending = ui.voice.end();
    });
    expect(ui.voice.status).toBe('ending');
    expect(ui.container.textContent).toBe('ending');
    act(() => scripted.send({ type: 'output.speech_stopped', turn_id: 1, reason: 'completed' }));
    await act(async () => {
      await clock.advance(150);
      await ending;
    });
    expect(ui.voice.status).toBe('ended');
  });
});

// Issue 27: the hook exposes the device list (in the snapshot) and both device setters.
describe('useVoiceSession devices', () => {
  it('routes the answers with setOutputDevice (kept for the next call) and switches inputs; not_supported without setSinkId', async () => {
    const sinks: string[] = [];
    const audio = Object.assign(new (class extends EventTarget {})(), {
      autoplay: false, srcObject: null as MediaStream | null, play: () => Promise.resolve(), pause: () => undefined,
      setSinkId: async (id: string) => void sinks.push(id),
    });
    const { ui } = scriptedCall({}, { audioElement: audio as unknown as HTMLAudioElement });
    expect(ui.voice.devices).toBeUndefined();
    await act(() => ui.voice.start());
    await act(() => ui.voice.setOutputDevice('headset'));
    expect(sinks).toEqual(['headset']);
    await act(() => ui.voice.end());
    await act(() => ui.voice.start());
    await act(async () => undefined);
    expect(sinks).toEqual(['headset', 'headset']); // the choice carried into the next call
    await expect(ui.voice.setInputDevice('usb')).resolves.toBeUndefined();
    await act(() => ui.voice.end());

    const plain = scriptedCall(); // the scripted <audio> stand-in has no setSinkId
    await act(() => plain.ui.voice.start());
    await expect(plain.ui.voice.setOutputDevice('headset')).rejects.toMatchObject({ code: 'not_supported' });
  });
});
