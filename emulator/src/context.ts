import type { ScriptQueue } from './script.js';
import type { Store } from './store.js';

/** Faults injected through `PUT /_emulator/faults` (CONTRACT.md). */
export interface Faults {
  warmup: 'ok' | 'fail' | 'hang';
  /** Extra latency added to every API request (ms). */
  latencyMs: number;
}

/**
 * Builds robots' reasoning agents. The first realtime task of a robot pays `agentBuildMs` unless a
 * successful warmup already built the agent; a failed warmup leaves the robot cold.
 */
export interface AgentBuilder {
  /** E1: builds the agent honouring the warmup fault; resolves `true` on success, `false` on a swallowed failure. */
  warmup(robotId: string): Promise<boolean>;
  /** Used by the first task: resolves once built, with the build time this caller paid (0 when warm). */
  ensureBuilt(robotId: string): Promise<{ paidMs: number }>;
  isBuilt(robotId: string): boolean;
  reset(): void;
}

/** Everything the emulator's routes and realtime peers share. */
export interface EmulatorContext {
  store: Store;
  agents: AgentBuilder;
  faults: Faults;
  apiKey: string;
  agentBuildMs: number;
  /** Folder holding recorded audio; removed by `close()`. */
  audioDir: string;
  /** QA's scripted utterances (`PUT /_emulator/script`), taken by realtime voice turns. */
  script: ScriptQueue;
  /** Absolute base URL the emulator is reachable at (for presigned URLs), without trailing slash. */
  baseUrl(): string;
}
