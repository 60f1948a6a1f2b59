import { afterEach, describe, expect, it } from 'vitest';
import { VoiceSession } from '../../src/client/index.js';
import { ScriptedService } from '../../src/testing/index.js';

// CONTRACT.md "QA with Playwright": every VoiceSession registers itself with
// globalThis.__KB_VOICE_HOOK__ when it is constructed (kb-voice-qa's install(page) puts it there).
type HookGlobal = typeof globalThis & { __KB_VOICE_HOOK__?: { register(session: VoiceSession): void } };

afterEach(() => {
  delete (globalThis as HookGlobal).__KB_VOICE_HOOK__;
});

describe('__KB_VOICE_HOOK__', () => {
  it('receives each VoiceSession once, when it is constructed', () => {
    const registered: VoiceSession[] = [];
    (globalThis as HookGlobal).__KB_VOICE_HOOK__ = { register: (session) => registered.push(session) };
    const scripted = new ScriptedService();
    const first = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions });
    const second = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions });
    expect(registered).toEqual([first, second]);
    // Registered before start(): the hook sees every state from idle on.
    expect(registered[0]!.state.status).toBe('idle');
  });

  it('is optional: without it sessions are constructed as before', () => {
    const scripted = new ScriptedService();
    expect(() => new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions })).not.toThrow();
  });
});
