import type { RelayOptions } from './types.js';

/**
 * The relay refuses options it does not know (a misspelt `allowedOrigin` or `stages.beforeAuthorize`
 * would otherwise leave the app's own check out and answer 200), and a `robots` list no user could
 * ever use. Runs once, in `createRelay`.
 */

/** Every key of `RelayOptions` (the type below fails to compile when one is missing or extra). */
const OPTION_KEYS = [
  'upstream', 'apiKey', 'prefix', 'authorize', 'robots', 'authorizeTimeoutMs', 'maxSessionsPerUser', 'sessionHoldMs', 'reportWindow',
  'maxUpstreamJsonBytes', 'openaiSessionFields', 'stages', 'allowedHosts', 'allowedOrigins', 'timeoutMs', 'maxBodyBytes', 'tracing',
  'rateLimit', 'secret', 'logger', 'fetch',
] as const satisfies readonly (keyof RelayOptions)[];
type Missing = Exclude<keyof RelayOptions, (typeof OPTION_KEYS)[number]>;
const everyKeyListed: [Missing] extends [never] ? true : never = true;
void everyKeyListed;

const NESTED: Record<string, readonly string[]> = {
  stages: ['before', 'afterAuthorize'] satisfies readonly (keyof NonNullable<RelayOptions['stages']>)[],
  reportWindow: ['defaultDays', 'maxDays'] satisfies readonly (keyof NonNullable<RelayOptions['reportWindow']>)[],
};

/** The quick start's placeholder robot id, which would make every user request a 403. */
const PLACEHOLDER_ROBOT = 'ROBOT_ID';

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The valid key closest to `key`: one containing it (or contained in it) first, then the smallest edit distance, case-insensitive. */
export function nearestKey(key: string, valid: readonly string[]): string {
  const k = key.toLowerCase();
  const score = (v: string) => {
    const l = v.toLowerCase();
    return (l.includes(k) || k.includes(l) ? 0 : 1000) + distance(k, l);
  };
  return valid.reduce((best, v) => (score(v) < score(best) ? v : best));
}

function checkKeys(value: object, valid: readonly string[], at: string): void {
  for (const key of Object.keys(value)) {
    if (valid.includes(key)) continue;
    const list = valid.length <= 4 ? ` (${at.slice(0, -1)} takes ${valid.join(', ')})` : '';
    throw new TypeError(`Unknown relay option ${at}${key}: did you mean ${at}${nearestKey(key, valid)}?${list}`);
  }
}

/** Throws a `TypeError` naming an unknown option (and the nearest valid one), or a `robots` list no user can use. */
export function checkRelayOptions(options: RelayOptions): void {
  if (typeof options !== 'object' || options === null) throw new TypeError('createRelay needs an options object');
  checkKeys(options, OPTION_KEYS, '');
  for (const [name, keys] of Object.entries(NESTED)) {
    const nested = (options as unknown as Record<string, unknown>)[name];
    if (typeof nested === 'object' && nested !== null) checkKeys(nested, keys, `${name}.`);
  }
  const { robots } = options;
  if (Array.isArray(robots) && robots.length === 0) throw new TypeError("Relay option robots is empty: no user could reach any robot; list the robot ids, or '*' for every robot on the key");
  if (Array.isArray(robots) && robots.includes(PLACEHOLDER_ROBOT)) throw new TypeError(`Relay option robots holds the placeholder '${PLACEHOLDER_ROBOT}': put your robot's id there (every user request would answer 403)`);
}
