/**
 * `kb-voice/react`: {@link useVoiceSession}, a voice call in a React component (React 18 or 19,
 * an optional peer dependency of kb-voice).
 */
export { useVoiceSession, type VoiceSessionControls } from './use-voice-session.js';
