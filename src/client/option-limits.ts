import type { VoiceSessionOptions } from './options.js';

/**
 * What each `VoiceSession` option may be, checked at construction (docs/client.md, "Options"): an
 * integer range `[min, max]` (ms unless the name says otherwise), the choices (`object`: any object
 * too, its members checked by their reader), or the `typeof`s allowed (`false`: the literal). A
 * value outside is a `TypeError` (wrong type) or `RangeError` (out of range, not a choice) naming
 * the option and its limits: a bad option fails where it is written, not later as a blank
 * transcript, a start that never settles or a flood of pings. Kept terse: it is in every bundle.
 */
export const OPTION_LIMITS = {
  aiId: 'string',
  api: 'object',
  language: 'string',
  userIdentifier: 'string',
  interruptions: ['auto', 'off', 'object'],
  noiseSuppression: ['browser', 'rnnoise', 'off'],
  noiseModule: 'function',
  noiseAssets: 'object',
  voiceGate: 'object false',
  turnTaking: ['auto', 'push-to-talk'],
  transport: 'object',
  protocol: 'object',
  maxTranscriptChars: [1, 1e7],
  iceServers: 'object',
  signal: 'object',
  wrtc: 'object',
  microphone: 'object function false',
  resume: 'boolean',
  resumeWindowMs: [0, 864e5],
  audioElement: 'object',
  reconnectTimeoutMs: [0, 6e5],
  reconnectPolicy: 'object',
  /** Or 0: no heartbeat. At least 10 ms: 100 pings a second at most. */
  heartbeatIntervalMs: [10, 6e4],
  connectTimeoutMs: [1000, 6e5],
  gracefulEndTimeoutMs: [0, 6e4],
  levelMeter: 'function',
  quality: 'object',
  clock: 'object',
  maxRetryAfter: [0, 6e5],
  sources: 'function',
  preConnectBuffer: 'false boolean object',
} as const satisfies Record<keyof VoiceSessionOptions, string | readonly string[] | readonly [number, number]>;

/** Checks every option against {@link OPTION_LIMITS}; `aiId` (not empty) and `api` are required; an unknown name (a typo) is a TypeError. */
export function checkOptions(options: VoiceSessionOptions): void {
  const given = options as unknown as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(OPTION_LIMITS, key) && given[key] !== undefined) throw new TypeError(`Unknown VoiceSession option ${key}`);
  }
  for (const [key, rule] of Object.entries(OPTION_LIMITS)) {
    const value = given[key];
    const type = value === false || value === null ? `${value}` : typeof value;
    const fail = (Type: typeof TypeError, limits: unknown) => {
      throw new Type(`VoiceSession option ${key} must be ${limits} (got ${typeof value === 'string' ? `'${value}'` : value === undefined || type == 'object' ? type : value})`);
    };
    if (value === undefined ? key === 'aiId' || key === 'api' : value === '' && key === 'aiId') fail(TypeError, 'given, not empty');
    if (value === undefined || (value === 0 && key === 'heartbeatIntervalMs')) continue;
    if (typeof rule === 'string') rule.split(' ').includes(type) || fail(TypeError, rule.replace(/ /g, ' or '));
    else if (typeof rule[0] === 'number') {
      if (type !== 'number') fail(TypeError, 'a number');
      if (!Number.isInteger(value) || (value as number) < rule[0] || (value as number) > (rule[1] as number)) fail(RangeError, `an integer from ${rule[0]} to ${rule[1]}`);
    } else (rule as readonly unknown[]).includes(type === 'object' ? 'object' : value) || fail(RangeError, `'${rule.join("' or '")}'`.replace("'object'", 'an object'));
  }
}
