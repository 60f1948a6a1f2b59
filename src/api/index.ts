/** The typed API client of the service, for servers (with the key) and browsers (through a relay). */
export { createApiClient, type ApiClient, type CallOptions } from './client.js';
export { DEFAULT_TIMEOUT_MS, MAX_RETRY_AFTER_MS, type ApiClientOptions, type ApiHooks, type RetrySignal } from './http.js';
/** The one safe reader of response bodies (within a signal, bounded in bytes); the relay reads upstream bodies with it too. */
export { BodyTooLargeError, parseBody, readBody, readText, type ReadBodyOptions } from './body.js';
export { parseRetryAfter } from './retry-after.js';
export { MAX_REMEMBERED_RESOURCES } from './resources.js';
export { ApiError, KbVoiceError, ValidationError, type ApiErrorCode } from './errors.js';
export { readSseData } from './sse.js';
