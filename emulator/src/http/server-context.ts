import type { ManagedAgentBuilder } from '../agents.js';
import type { EmulatorContext } from '../context.js';
import type { DeletionQueue } from '../deletions.js';
import type { Fixtures } from '../fixtures/seed.js';
import type { Presigner } from '../presign.js';
import type { RealtimeService } from '../realtime/index.js';

/** What the HTTP routes share: the emulator context plus the HTTP side's own services. */
export interface ServerContext extends EmulatorContext {
  agents: ManagedAgentBuilder;
  presigner: Presigner;
  deletions: DeletionQueue;
  realtime: RealtimeService;
  /** Largest request body accepted (413 above). */
  maxBodyBytes: number;
  /** How long a file or link takes to learn after E4/E5 (ms): a quarter waiting, the rest learning. */
  fileLearningMs: number;
  fixtures: Fixtures;
  /** Turns added by `POST /_emulator/history` since the last reset (bounded by MAX_HISTORY_TURNS). */
  history: { turns: number };
  /** Host names besides the loopback ones the control routes answer to (`controlHosts` option). */
  controlHosts: readonly string[];
  /** Restores the seeded state (POST /_emulator/reset). */
  reset(): Promise<Fixtures>;
}
