import { describe, expect, it } from 'vitest';
import { SessionHolder } from '../../src/client/holder.js';
import { FakeClock, ScriptedService } from '../../src/testing/index.js';

// The "one VoiceSession per call" holder behind both the React hook and <kb-voice-widget>.

function setup() {
  const scripted = new ScriptedService({ clock: new FakeClock() });
  const made: unknown[] = [];
  const holder = new SessionHolder(() => ({ aiId: 'robot-1', ...scripted.sessionOptions }), (session) => made.push(session));
  let notified = 0;
  holder.subscribe(() => notified++);
  return { scripted, holder, made, notified: () => notified };
}

describe('SessionHolder', () => {
  it('makes one session per call and hands each to `made` before it starts', async () => {
    const { holder, made } = setup();
    expect(holder.getSnapshot().status).toBe('idle');
    await holder.start();
    const first = holder.session!;
    await holder.start(); // a call is up: the same session
    expect(made).toEqual([first]);
    await holder.end();
    expect(holder.busy).toBe(false);
    await holder.start();
    expect(made).toHaveLength(2);
    expect(holder.session).not.toBe(first);
    expect(holder.getSnapshot().status).toBe('connected');
    await holder.end();
  });

  it('carries the mute choice into the next call, whoever muted (holder or the session itself)', async () => {
    const { holder, scripted } = setup();
    holder.setMuted(true); // before any call
    expect(holder.getSnapshot().muted).toBe(true);
    await holder.start();
    expect(holder.getSnapshot().muted).toBe(true);
    expect(scripted.tracks[0]!.enabled).toBe(false);
    holder.session!.unmute(); // the app unmuted through the session
    expect(holder.muted).toBe(false);
    holder.session!.mute();
    await holder.end();
    await holder.start();
    expect(holder.session!.muted).toBe(true);
    expect(scripted.tracks[1]!.enabled).toBe(false);
    holder.setMuted(false);
    expect(scripted.tracks[1]!.enabled).toBe(true);
    await holder.end();
  });

  it('ends the call once the last mount is gone a microtask later (a move or StrictMode remount keeps it)', async () => {
    const { holder } = setup();
    const unmount = holder.attach();
    await holder.start();
    unmount();
    const again = holder.attach(); // remounted in the same task
    await Promise.resolve();
    expect(holder.session!.state.status).toBe('connected');
    again();
    again(); // idempotent
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    await holder.session!.end();
    expect(holder.session!.state).toMatchObject({ status: 'ended', reason: 'local' });
  });

  it('refuses sendText and report before any call', async () => {
    const { holder } = setup();
    expect(() => holder.sendText('hi')).toThrow(expect.objectContaining({ code: 'not_connected' }));
    await expect(holder.report()).rejects.toMatchObject({ code: 'not_connected' });
  });
});
