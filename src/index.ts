/**
 * `kb-voice`: the browser-safe entry. {@link VoiceSession} runs a voice call with a knowledge-base
 * robot; `createApiClient` calls the service (through your relay in browsers). Nothing here imports
 * a Node built-in.
 */
export * from './client/index.js';
export * from './api/index.js';
