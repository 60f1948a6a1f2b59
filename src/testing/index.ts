/**
 * `kb-voice/testing`: a scripted service for testing apps built on VoiceSession (or the React
 * hook) with no WebRTC, no network and no timers of its own.
 */
export { ScriptedService, type ScriptedServiceOptions, type ScriptedCall, type ScriptedEvent, type SignalingFailure } from './scripted-service.js';
export { FakeClock } from './fake-clock.js';
export { FakeAudioElement, fakeStream, fakeTrack, type FakeTrack } from './fakes.js';
