import { PROTOCOL_VERSION } from '../schemas/realtime-events.js';
import { retry, type Connection } from './connector.js';
import { VoiceSessionError } from './errors.js';
import type { Link } from './link.js';
import type { VoiceSessionOptions } from './options.js';
import type { SessionState } from './state.js';
import { Waiters } from './waiters.js';

/** How long the link may take to carry a ping and its pong after an ICE restart before a new offer is made. */
const RESTART_PROBE_MS = 3000;

/** What {@link Recovery} needs of the session. */
export interface RecoveryHost {
  /** end() began: every pending step stands down. */
  closing(): boolean;
  setState(state: SessionState): void;
  /** One attempt continuing `sessionId` within `timeoutMs`. */
  connect(sessionId: string, timeoutMs: number): Promise<Connection>;
  /** The link carries the call again. */
  connected(conn: Connection): void;
  /** Nothing restored the link in time: the call is over (`connection_lost`). */
  gaveUp(error: VoiceSessionError): void;
}

type Limits = Pick<VoiceSessionOptions, 'reconnectTimeoutMs' | 'connectTimeoutMs'>;

/**
 * Restores a dropped call: first an ICE restart on the same connection (when the transport can),
 * then new offers for the same session until one connects or `reconnectTimeoutMs` is spent.
 */
export class Recovery {
  private restartedAt = 0;
  private readonly pongs = new Waiters();

  /** `probes`: the dialect has ping/pong, so a restarted link is trusted only once a ping came back. */
  constructor(private readonly link: Link, private readonly host: RecoveryHost, private readonly limits: Limits, private readonly probes: boolean) {}

  /** A pong arrived. */
  pong(): void {
    this.pongs.wake();
  }

  async run(sessionId: string): Promise<void> {
    const timeoutMs = this.limits.reconnectTimeoutMs ?? 15000;
    const conn = this.link.current;
    let restarted = 0;
    // A link that dies again soon after a restart (the far side, not the path, is the problem) gets new offers.
    const restart = Date.now() - this.restartedAt > timeoutMs ? conn?.transport.restart?.() : undefined;
    if (restart && conn) {
      restarted = 1;
      this.restartedAt = Date.now();
      this.host.setState({ status: 'reconnecting', sessionId, attempt: 1 });
      const ok = await restart.then(() => this.probe(RESTART_PROBE_MS), () => false);
      if (this.host.closing() || conn !== this.link.current) return;
      if (ok) {
        this.host.connected(conn);
        return;
      }
    }
    this.link.close();
    try {
      await retry(timeoutMs, () => this.host.closing(), async (n, left) => {
        this.host.setState({ status: 'reconnecting', sessionId, attempt: n + restarted });
        const conn = await this.host.connect(sessionId, Math.min(left, this.limits.connectTimeoutMs ?? 15000));
        if (!this.host.closing()) this.host.connected(conn);
      });
    } catch (cause) {
      if (this.host.closing()) return;
      this.host.gaveUp(new VoiceSessionError('connection_lost', `The connection was lost and not restored within ${timeoutMs} ms`, { cause }));
    }
  }

  /**
   * Whether a ping sent now is answered within `ms` (the link carries messages again). A dialect
   * without ping/pong has nothing to probe with: ICE connected again is taken as restored.
   */
  private probe(ms: number): Promise<boolean> {
    if (!this.probes) return Promise.resolve(true);
    return this.pongs.wait(ms, () => this.link.send({ v: PROTOCOL_VERSION, type: 'ping', t: Date.now() }));
  }
}
