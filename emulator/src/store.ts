import type { DatasetFile, DatasetLink, GenPromptOut, IntegrationRule, SessionMessage } from 'kb-voice/schemas';

import type { TokenCounts } from './pricing.js';

/**
 * The emulator's storage: one small interface of keyed collections, in memory by default
 * (memory-collection.ts: `createMemoryStore`). Every record carries the ids it belongs to so that
 * deletion and aggregation are simple filters. A user can swap in another implementation (e.g.
 * backed by SQLite) by implementing {@link Store}. This module holds types only: implementations
 * import it, never the other way round.
 */
export interface Collection<T extends { id: string }> {
  get(id: string): T | undefined;
  /** Inserts or replaces. */
  put(item: T): T;
  /** Shallow-merges `patch` into an existing record; undefined when absent. */
  patch(id: string, patch: Partial<T>): T | undefined;
  delete(id: string): boolean;
  find(predicate: (item: T) => boolean): T[];
  /**
   * The items whose `field` equals `value`, in insertion order. A collection keeps an index for
   * the fields it is built with, so this costs what it returns; other fields are scanned.
   */
  where<K extends keyof T & string>(field: K, value: T[K]): T[];
  all(): T[];
  size(): number;
  clear(): void;
}

export interface RobotRecord {
  id: string;
  name: string;
  dataset_id: string;
  /** Realtime model name reported by E11/E12. */
  model: string;
  provider: string;
  /** Current prompt information (E2 updates it, E3 generates from it). */
  prompt: GenPromptOut;
}

export interface DatasetRecord {
  id: string;
  robot_id: string;
  name: string;
  metadata: Record<string, unknown>;
}

/** A dataset file with the text the emulator answers from (`content`) and, for PDFs, its bytes. */
export interface FileRecord extends DatasetFile {
  content: string;
  /** For PDFs: the stored document, used by E9. */
  pdf?: Uint8Array;
  /** When the current learning run finishes (epoch ms); status moves waiting → learning → learned. */
  learn_started_at?: number;
}

export type LinkRecord = DatasetLink & { dataset_id: string };
export type IntegrationRecord = IntegrationRule & { dataset_id: string };

export interface SessionRecord {
  id: string;
  robot_id: string;
  user_identifier: string | null;
  language: string;
  title: string;
  created_at: string;
  ended_at?: string;
  /** Wall-clock duration of the realtime connection (ms), updated when it ends. */
  duration_ms: number;
  /** True once E15 accepted its deletion; the session is then invisible to every read. */
  deleting?: boolean;
}

export type MessageRecord = SessionMessage & { robot_id: string };

/** Token usage of one realtime turn (the counts per category: pricing.ts); E11–E13 aggregate these. */
export interface UsageRecord extends TokenCounts {
  id: string;
  robot_id: string;
  session_id: string;
  message_id: string;
  created_at: string;
  /** Audio durations behind the audio token counts. */
  input_audio_ms: number;
  output_audio_ms: number;
}

/** A recorded WAV segment of a realtime session (user or assistant speech), stored as a file. */
export interface AudioRecord {
  id: string;
  robot_id: string;
  session_id: string;
  segment_index: number;
  role: 'user' | 'assistant';
  file: string;
  duration_ms: number;
  created_at: string;
}

/**
 * Sessions additionally answer time windows: a robot's sessions created in [`from`, `to`] (epoch
 * ms, inclusive), newest first (ties by id), at a cost of what they return plus a binary search.
 */
export interface SessionCollection extends Collection<SessionRecord> {
  between(robotId: string, from: number, to: number): SessionRecord[];
}

export interface Store {
  robots: Collection<RobotRecord>;
  datasets: Collection<DatasetRecord>;
  files: Collection<FileRecord>;
  links: Collection<LinkRecord>;
  integrations: Collection<IntegrationRecord>;
  sessions: SessionCollection;
  messages: Collection<MessageRecord>;
  usage: Collection<UsageRecord>;
  audio: Collection<AudioRecord>;
}

