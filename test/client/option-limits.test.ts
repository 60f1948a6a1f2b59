import { describe, expect, it } from 'vitest';
import { VoiceSession, type VoiceSessionOptions } from '../../src/client/index.js';
import { OPTION_LIMITS } from '../../src/client/option-limits.js';
import { FakeClock, ScriptedService } from '../../src/testing/index.js';

// Every VoiceSession option is checked at construction (#46): a bad one is a TypeError or
// RangeError naming the option and its limits, not a blank transcript, a start that never
// settles, a million pings a second or a silently ignored typo.

const base = (): VoiceSessionOptions => ({ aiId: 'robot-1', ...new ScriptedService({ clock: new FakeClock() }).sessionOptions });
const make = (overrides: Record<string, unknown>) => () => new VoiceSession({ ...base(), ...overrides } as VoiceSessionOptions);

describe('VoiceSession options', () => {
  it.each<[string, unknown, ErrorConstructor, RegExp]>([
    ['maxTranscriptChars', Number.NaN, RangeError, /maxTranscriptChars must be an integer from 1 to 10000000 \(got NaN\)/],
    ['maxTranscriptChars', -1, RangeError, /maxTranscriptChars.*from 1/],
    ['maxTranscriptChars', 2.5, RangeError, /maxTranscriptChars must be an integer/],
    ['connectTimeoutMs', 'abc', TypeError, /connectTimeoutMs must be a number \(got 'abc'\)/],
    ['connectTimeoutMs', Number.POSITIVE_INFINITY, RangeError, /connectTimeoutMs.*from 1000 to 600000/],
    ['heartbeatIntervalMs', 0.001, RangeError, /heartbeatIntervalMs.*from 10 to 60000/],
    ['heartbeatIntervalMs', 5, RangeError, /heartbeatIntervalMs/],
    ['reconnectTimeoutMs', -5, RangeError, /reconnectTimeoutMs/],
    ['gracefulEndTimeoutMs', 1e9, RangeError, /gracefulEndTimeoutMs.*to 60000/],
    ['resumeWindowMs', '120000', TypeError, /resumeWindowMs/],
    ['turnTaking', 'push_to_talk', RangeError, /turnTaking must be 'auto' or 'push-to-talk' \(got 'push_to_talk'\)/],
    ['noiseSuppression', 'krisp', RangeError, /noiseSuppression must be 'browser' or 'rnnoise' or 'off'/],
    ['interruptions', 'of', RangeError, /interruptions must be 'auto' or 'off' or an object/],
    ['aiId', '', TypeError, /aiId must be given, not empty/],
    ['aiId', 42, TypeError, /aiId must be string \(got 42\)/],
    ['api', undefined, TypeError, /api must be given/],
    ['resume', 'yes', TypeError, /resume must be boolean/],
    ['microphone', true, TypeError, /microphone must be object or function or false/],
    ['noiseModule', 'kb-voice/noise', TypeError, /noiseModule must be function/],
    ['voiceGate', 'on', TypeError, /voiceGate must be object or false/],
    ['clock', null, TypeError, /clock must be object \(got null\)/],
  ])('%s: %o is refused', (key, value, type, message) => {
    const construct = make({ [key]: value });
    expect(construct).toThrow(type);
    expect(construct).toThrow(message);
  });

  it('accepts every default, the limits themselves, 0 for the heartbeat (off) and the object forms', () => {
    expect(make({})).not.toThrow();
    expect(make({ maxTranscriptChars: 1, connectTimeoutMs: 1000, heartbeatIntervalMs: 0, reconnectTimeoutMs: 600_000, gracefulEndTimeoutMs: 0 })).not.toThrow();
    expect(make({ heartbeatIntervalMs: 10, interruptions: { mode: 'off' }, microphone: false, voiceGate: false, turnTaking: 'push-to-talk' })).not.toThrow();
  });

  it('refuses an option it does not know (a typo would otherwise be silently ignored)', () => {
    expect(make({ preconnectBuffer: false })).toThrow(TypeError);
    expect(make({ preconnectBuffer: false })).toThrow(/Unknown VoiceSession option preconnectBuffer/);
    expect(make({ toString: 'x' })).toThrow(/Unknown VoiceSession option toString/);
    // A key set to undefined changes nothing (a spread of optional settings): fine, known or not.
    expect(make({ heartbeatIntervalMs: undefined, legacyThing: undefined })).not.toThrow();
  });

  it('the table names every option of VoiceSessionOptions (the type checks it too)', () => {
    expect(Object.keys(OPTION_LIMITS)).toContain('heartbeatIntervalMs');
    expect(Object.keys(OPTION_LIMITS)).toHaveLength(31);
  });
});
