/**
 * `kb-voice/schemas`: zod (mini) schemas and inferred types for every resource, request, response
 * and query of the service (E1–E20), the realtime signaling and data-channel protocol, and the 422
 * helpers.
 */
export * from './common.js';
export * from './validation.js';
export * from './request.js';
export * from './realtime.js';
export * from './realtime-events.js';
export * from './turn-events.js';
export * from './openai-realtime.js';
export * from './prompts.js';
export * from './sessions.js';
export * from './datasets.js';
export * from './documents.js';
export * from './chat.js';
export * from './endpoints.js';
export * from './endpoint-summaries.js';
export * from './sdpfrag.js';
export * from './offer-form.js';
export * from './http-status.js';
