/** The typed API client of the service, for servers (with the key) and browsers (through a relay). */
export { createApiClient, type ApiClient, type CallOptions } from './client.js';
export type { ApiClientOptions, ApiHooks, RetrySignal } from './transport.js';
export { ApiError, KbVoiceError, ValidationError, type ApiErrorCode } from './errors.js';
export { readSseData } from './sse.js';
