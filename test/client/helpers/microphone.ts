// The Node microphone the client tests speak through is the one the emulator ships for QA scripts.
export { FakeMicrophone } from 'kb-voice-emulator';
