/**
 * Stateless session grants: how the relay knows, on any instance and without shared storage, that a
 * session id was created through it by a given user.
 *
 * At signaling (endpoint RS) for a caller of role `user`, the relay mints the `session_id` itself and
 * the upstream creates the session under that id. The id is a UUID in the RFC 9562 version-8 layout:
 *
 * - bytes 0–7: random nonce (the high nibble of byte 6 is the version, `8`), 60 random bits;
 * - bytes 8–15: the first 8 bytes of HMAC-SHA256(key, nonce ‖ len ‖ UTF-8(robotId) ‖ UTF-8(userIdentifier)),
 *   `len` the robot id's byte length (one byte), the two high bits of byte 8 replaced by the variant
 *   `10`, 62 MAC bits. A grant names a user of one robot: it opens no session of another robot.
 *
 * Any later request naming a session id is checked by recomputing the MAC for the caller; a mismatch
 * answers 404 exactly like an unknown session. The key is HMAC-SHA256(secret, a fixed label), where
 * the secret is the relay's `secret` option or, by default, its API key: every instance configured
 * with the same secret accepts the same grants, and a deployment with another secret none of them
 * (two apps on one key set different secrets, else their users of the same name share sessions). Uses only WebCrypto, available in Node 20 and edge
 * runtimes.
 */
const LABEL = 'kb-voice relay session grant v2 (user, robot)';
const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const encoder = new TextEncoder();

/** HMAC-SHA256 of a message under the grant key: the first 8 bytes are the MAC. */
type Sign = (message: Uint8Array<ArrayBuffer>) => Promise<Uint8Array> | Uint8Array;

async function webCryptoSign(secret: string): Promise<Sign> {
  const base = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const derived = await crypto.subtle.sign('HMAC', base, encoder.encode(LABEL));
  const key = await crypto.subtle.importKey('raw', derived, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return async (message) => new Uint8Array(await crypto.subtle.sign('HMAC', key, message));
}

type NodeCrypto = typeof import('node:crypto');

/**
 * Node's own HMAC, where the runtime hands out its built-ins synchronously (`process.getBuiltinModule`,
 * Node 20.16+): a WebCrypto `sign` is a job on the thread pool, about 4× the CPU of `createHmac` per
 * grant check (15 vs 4 µs measured here), and every request naming a session makes one. Elsewhere (edge
 * runtimes, browsers) undefined: WebCrypto.
 */
function nodeSign(secret: string): Sign | undefined {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  const c = typeof get === 'function' ? (get('node:crypto') as NodeCrypto | undefined) : undefined;
  if (!c?.createHmac || !c.createSecretKey) return undefined;
  const key = c.createSecretKey(c.createHmac('sha256', secret).update(LABEL).digest());
  return (message) => c.createHmac('sha256', key).update(message).digest();
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

function toUuid(bytes: Uint8Array): string {
  const h = hex(bytes);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function fromUuid(id: string): Uint8Array | null {
  if (!UUID_V8.test(id)) return null;
  const h = id.replace(/-/g, '');
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = parseInt(h.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Mints and verifies session ids bound to a user identifier (see the module comment). */
export class SessionGrants {
  readonly #sign: Promise<Sign>;

  /**
   * @param secret the deployment's secret (see the module comment).
   * @param implementation `'auto'` (default): Node's HMAC where available, else WebCrypto; `'webcrypto'`:
   *   WebCrypto only. Both give the same ids: a grant minted by one verifies with the other.
   */
  constructor(secret: string, implementation: 'auto' | 'webcrypto' = 'auto') {
    if (!secret) throw new TypeError('SessionGrants needs a non-empty secret');
    const node = implementation === 'auto' ? nodeSign(secret) : undefined;
    this.#sign = node ? Promise.resolve(node) : webCryptoSign(secret);
  }

  async #mac(nonce: Uint8Array, userIdentifier: string, robotId: string): Promise<Uint8Array> {
    const user = encoder.encode(userIdentifier);
    const robot = encoder.encode(robotId);
    if (robot.length > 255) throw new TypeError('SessionGrants: a robot id is at most 255 bytes');
    const message = new Uint8Array(nonce.length + 1 + robot.length + user.length);
    message.set(nonce);
    message[nonce.length] = robot.length;
    message.set(robot, nonce.length + 1);
    message.set(user, nonce.length + 1 + robot.length);
    const mac = (await (await this.#sign)(message)).slice(0, 8);
    mac[0] = (mac[0]! & 0x3f) | 0x80;
    return mac;
  }

  /** A new session id owned by `userIdentifier` on robot `robotId`. */
  async mint(userIdentifier: string, robotId: string): Promise<string> {
    const nonce = crypto.getRandomValues(new Uint8Array(8));
    nonce[6] = (nonce[6]! & 0x0f) | 0x80;
    const bytes = new Uint8Array(16);
    bytes.set(nonce);
    bytes.set(await this.#mac(nonce, userIdentifier, robotId), 8);
    return toUuid(bytes);
  }

  /** Whether `sessionId` was minted for `userIdentifier` on `robotId` by a relay sharing this secret. */
  async verify(sessionId: string, userIdentifier: string, robotId: string): Promise<boolean> {
    const bytes = fromUuid(sessionId);
    if (!bytes || encoder.encode(robotId).length > 255) return false;
    const expected = await this.#mac(bytes.subarray(0, 8), userIdentifier, robotId);
    let diff = 0;
    for (let i = 0; i < 8; i++) diff |= expected[i]! ^ bytes[8 + i]!;
    return diff === 0;
  }
}
