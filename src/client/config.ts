import { checkOptions } from './option-limits.js';
import { systemClock, type Clock } from '../clock.js';
import type { AttemptSetup } from './attempt.js';
import type { VoiceSessionOptions } from './options.js';
import { simplePeerTransport } from './peer.js';
import { v1Protocol } from './protocol.js';
import { jitteredBackoff } from './reconnect-policy.js';
import type { RecoveryOptions } from './recovery.js';

/** Default ping period: with 4 unanswered pings a dead path is noticed within 1.0-1.25 s (docs/client.md, "Recovery"). */
const DEFAULT_HEARTBEAT_MS = 250;

/**
 * A session's options read once, every default applied: what the wiring (wiring.ts) and the
 * session use, so no option is looked at (or defaulted) in two places.
 */
export interface SessionConfig {
  /** The options as given (the call's target, devices, the API object). */
  readonly options: VoiceSessionOptions;
  readonly clock: Clock;
  /** What every attempt of the session shares: target, transport provider, protocol and its codec. */
  readonly setup: AttemptSetup;
  /** Data-channel ping period; 0 when off (or the protocol has no ping/pong). */
  readonly heartbeatMs: number;
  readonly connectTimeoutMs: number;
  readonly gracefulEndTimeoutMs: number;
  readonly pushToTalk: boolean;
  /** Recovery's rules (the network watch is added by the wiring). */
  readonly recovery: Omit<RecoveryOptions, 'network' | 'lastHeard'>;
}

/** Reads `options` once into a {@link SessionConfig}. */
export function sessionConfig(options: VoiceSessionOptions): SessionConfig {
  // Every option checked once, here: a TypeError/RangeError naming it and its limits (option-limits.ts).
  checkOptions(options);
  const clock = options.clock ?? systemClock;
  const protocol = options.protocol ?? v1Protocol;
  // A protocol without ping/pong relies on the transport noticing a dead link.
  const probes = protocol.heartbeat !== false;
  const connectTimeoutMs = options.connectTimeoutMs ?? 15000;
  const { iceServers, wrtc, maxRetryAfter } = options;
  return {
    options, clock, connectTimeoutMs,
    setup: {
      target: options, clock, protocol, codec: protocol.codec(clock),
      provider: options.transport ?? simplePeerTransport({ ...(iceServers ? { iceServers } : {}), ...(wrtc ? { wrtc } : {}) }),
    },
    heartbeatMs: probes ? options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_MS : 0,
    gracefulEndTimeoutMs: options.gracefulEndTimeoutMs ?? 10000,
    pushToTalk: options.turnTaking === 'push-to-talk',
    recovery: {
      clock, probes, connectTimeoutMs, policy: options.reconnectPolicy ?? jitteredBackoff(),
      reconnectTimeoutMs: options.reconnectTimeoutMs ?? 15000, ...(maxRetryAfter !== undefined ? { maxRetryAfter } : {}),
    },
  };
}
