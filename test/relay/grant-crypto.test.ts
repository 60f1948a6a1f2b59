import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionGrants } from '../../src/relay/index.js';

// Session grants use Node's HMAC where the runtime hands out its built-ins synchronously: a WebCrypto
// sign is a thread-pool job costing about 4× the CPU, and every request naming a session checks one
// (docs/relay.md "What a request costs"). Both implementations must give the same ids.

const ROBOT = '6f1c1e0e-3a4b-4c5d-8e9f-0a1b2c3d4e5f';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('SessionGrants implementations', () => {
  it('agree: a grant minted by either verifies with the other, for that user and robot only', async () => {
    const web = new SessionGrants('grant-crypto-secret', 'webcrypto');
    const auto = new SessionGrants('grant-crypto-secret');
    for (const [minter, checker] of [[web, auto], [auto, web]] as const) {
      for (const user of ['alice', 'ユーザー42']) {
        const id = await minter.mint(user, ROBOT);
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(await checker.verify(id, user, ROBOT)).toBe(true);
        expect(await checker.verify(id, 'mallory', ROBOT)).toBe(false);
        expect(await checker.verify(id, user, '7d3c6a52-1f0e-4b8a-9c2d-5e4f3a2b1c01')).toBe(false);
      }
    }
    expect(await new SessionGrants('another-deployment', 'webcrypto').verify(await auto.mint('alice', ROBOT), 'alice', ROBOT)).toBe(false);
  });

  it('check a grant without a WebCrypto sign in Node (the thread-pool job the old code made per check)', async () => {
    const grants = new SessionGrants('grant-crypto-secret');
    const id = await grants.mint('alice', ROBOT);
    const sign = vi.spyOn(crypto.subtle, 'sign');
    expect(await grants.verify(id, 'alice', ROBOT)).toBe(true);
    expect(await grants.verify(id, 'bob', ROBOT)).toBe(false);
    expect(sign).not.toHaveBeenCalled();
  });

  it('use WebCrypto where the runtime gives no built-ins (edge runtimes)', async () => {
    vi.spyOn(process, 'getBuiltinModule').mockImplementation(() => undefined as never);
    const grants = new SessionGrants('grant-crypto-secret');
    const sign = vi.spyOn(crypto.subtle, 'sign');
    const id = await grants.mint('alice', ROBOT);
    expect(await grants.verify(id, 'alice', ROBOT)).toBe(true);
    expect(sign).toHaveBeenCalled();
    vi.restoreAllMocks();
    expect(await new SessionGrants('grant-crypto-secret').verify(id, 'alice', ROBOT)).toBe(true);
  });
});
