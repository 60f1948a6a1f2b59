import type { DatasetFile, DatasetLink, FileStatus, SessionMessage } from 'kb-voice/schemas';
import type { DatasetRecord, FileRecord, LinkRecord, MessageRecord, RobotRecord, SessionRecord, Store } from '../store.js';
import { notFound } from './errors.js';

/** Lookups shared by the routes: each answers 404 `{ detail }` for an unknown (or deleting) id. */

export function robotOr404(store: Store, id: string): RobotRecord {
  const robot = store.robots.get(id);
  if (!robot) throw notFound('Robot');
  return robot;
}

export function datasetOr404(store: Store, id: string): DatasetRecord {
  const dataset = store.datasets.get(id);
  if (!dataset) throw notFound('Dataset');
  return dataset;
}

/** A session of the robot that is not being deleted. */
export function sessionOr404(store: Store, robotId: string, sessionId: string): SessionRecord {
  const session = store.sessions.get(sessionId);
  if (!session || session.robot_id !== robotId || session.deleting) throw notFound('Session');
  return session;
}

/** A message of the robot whose session is not being deleted. */
export function messageOr404(store: Store, robotId: string, messageId: string): MessageRecord {
  const message = store.messages.get(messageId);
  if (!message || message.robot_id !== robotId || store.sessions.get(message.session_id)?.deleting) throw notFound('Message');
  return message;
}

/** A message as the API shows it (without the emulator's bookkeeping). */
export function publicMessage(m: MessageRecord): SessionMessage {
  const { robot_id: _robot, ...rest } = m;
  return rest;
}

/**
 * Learning moves on with time after E4/E5 start it: `waiting` for the first quarter of
 * `learningMs`, then `learning`, then `learned`.
 */
export function learningStatus(stored: FileStatus, startedAt: number | undefined, learningMs: number, now = Date.now()): FileStatus {
  if (startedAt === undefined) return stored;
  const elapsed = now - startedAt;
  if (elapsed < learningMs / 4) return 'waiting';
  if (elapsed < learningMs) return 'learning';
  return 'learned';
}

/** Brings a file's stored status up to date and returns it. */
export function currentFile(store: Store, file: FileRecord, learningMs: number): FileRecord {
  const status = learningStatus(file.status, file.learn_started_at, learningMs);
  if (status === 'learned' && file.learn_started_at !== undefined) {
    return store.files.patch(file.id, { status, learn_started_at: undefined, updated_at: new Date(file.learn_started_at + learningMs).toISOString() })!;
  }
  return status === file.status ? file : { ...file, status };
}

/** A dataset file as the API shows it (no stored text or bytes). */
export function publicFile(file: FileRecord): DatasetFile {
  const { content: _c, pdf: _p, learn_started_at: _l, ...rest } = file;
  return rest;
}

/** A link with its learning status brought up to date, as the API shows it. */
export function publicLink(link: LinkRecord & { learn_started_at?: number }, learningMs: number): DatasetLink {
  const { dataset_id: _d, learn_started_at, ...rest } = link;
  return { ...rest, status: learningStatus(link.status, learn_started_at, learningMs) };
}
