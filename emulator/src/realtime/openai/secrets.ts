import { oaiId } from './events.js';
import type { SessionState } from './session-config.js';

/** Default lifetime of a client secret, as OpenAI's (10 minutes). */
export const DEFAULT_SECRET_TTL_S = 600;

export interface ClientSecret {
  value: string;
  robotId: string;
  /** The end user the secret was minted for (`OpenAI-Safety-Identifier`), or null. */
  userIdentifier: string | null;
  /** The session configuration calls made with it start from. */
  session: SessionState;
  /** Unix seconds. */
  expiresAt: number;
  /** The id the (single) call made with it gets, when the minting server chose one (the relay does). */
  sessionId?: string;
}

export type SecretCheck = { ok: true; secret: ClientSecret } | { ok: false; reason: 'unknown' | 'expired' };

/**
 * The emulator's ephemeral keys (`ek_…`). A secret is bound to one robot and one user identifier,
 * may start any number of calls until it expires, and is refused after that.
 */
export class ClientSecretStore {
  readonly #secrets = new Map<string, ClientSecret>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  #nowS(): number {
    return Math.floor(this.#now() / 1000);
  }

  #purge(): void {
    const now = this.#nowS();
    // Expired secrets are remembered for an hour, so a late caller learns "expired", not "unknown".
    for (const [value, secret] of this.#secrets) if (secret.expiresAt + 3600 <= now) this.#secrets.delete(value);
  }

  mint(init: { robotId: string; userIdentifier: string | null; session: SessionState; ttlS?: number; sessionId?: string }): ClientSecret {
    this.#purge();
    const expiresAt = this.#nowS() + (init.ttlS ?? DEFAULT_SECRET_TTL_S);
    const secret: ClientSecret = {
      value: oaiId('ek'),
      robotId: init.robotId,
      userIdentifier: init.userIdentifier,
      session: { ...init.session, expiresAt },
      expiresAt,
      ...(init.sessionId ? { sessionId: init.sessionId } : {}),
    };
    this.#secrets.set(secret.value, secret);
    return secret;
  }

  check(value: string): SecretCheck {
    const secret = this.#secrets.get(value);
    if (!secret) return { ok: false, reason: 'unknown' };
    if (secret.expiresAt <= this.#nowS()) return { ok: false, reason: 'expired' };
    return { ok: true, secret };
  }

  clear(): void {
    this.#secrets.clear();
  }
}
