/** The OpenAI Realtime protocol of VoiceSession (imported only by apps that select it). */
export { openaiProtocol, type OpenAIProtocolOptions } from './protocol.js';
export { openaiCodec, type OpenAICodec } from './codec.js';
