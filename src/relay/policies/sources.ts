import { endpoints, SessionMessage } from '../../schemas/index.js';
import { RelayError } from '../errors.js';
import type { Policy, Routed } from '../route-types.js';
import { forward, json, readJson } from './forward.js';
import { owns, sessionNotFound } from './scope.js';

/**
 * How a caller of role `user` reaches the answers of their sessions and what they cite (CONTRACT.md,
 * "Sources and ratings"): E17 (a message), E18 (its references), E6 (its rating) and E9 (highlight
 * positions in a PDF it cites). Each request names one message; the relay reads it once upstream
 * (E17), and goes on only when its `session_id` is granted to the caller (else 404, as for any
 * session not theirs). E9 also needs the message's `reference_list` to cite the `file_id`. Bodies are
 * rebuilt from allowlists. One upstream read per check, nothing remembered: no state to share
 * between instances, and a message deleted or moved is never served from memory.
 */

const messageNotFound = () => new RelayError(404, 'Message not found', 'the message is not in a session granted to this user');
const fileNotFound = () => new RelayError(404, 'File not found', 'the file is not cited by the named message of a session granted to this user');
const missingMessage = () => new RelayError(422, [{ loc: ['query', 'message_id'], msg: 'Field required', type: 'missing' }], 'a user must name the message citing the file');

/** A message id as the service makes them: anything else is never put into an upstream path. */
const MESSAGE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The message `messageId` of the path's robot, read with E17, when its session is granted to the caller (else a 404 `RelayError`). */
async function ownedMessage(ctx: Routed, messageId: unknown): Promise<{ raw: unknown; value: SessionMessage }> {
  if (typeof messageId !== 'string' || !MESSAGE_ID.test(messageId)) throw messageNotFound();
  const own = ctx.match.route.endpoint === endpoints.E17;
  let read;
  try {
    const answer = await forward(ctx, own ? {} : { endpoint: endpoints.E17, params: { ai_id: ctx.match.params.ai_id!, message_id: messageId } });
    read = await readJson(ctx, answer, SessionMessage);
  } catch (error) {
    throw error instanceof RelayError && error.status === 404 ? messageNotFound() : error;
  }
  // The answer must be the message asked for, in a session of this caller on this robot.
  if (read.value.id.toLowerCase() !== messageId.toLowerCase() || !(await owns(ctx, read.value.session_id))) throw messageNotFound();
  return read;
}

/** Whether a message's stored references cite `fileId` (`reference_list` items as the emulator stores them: `{ file_id, … }`). */
function cites(message: SessionMessage, fileId: string): boolean {
  const list = message.reference_list;
  return Array.isArray(list) && list.some((r) => typeof r === 'object' && r !== null && (r as { file_id?: unknown }).file_id === fileId);
}

/** The user policies of the routes about one message. */
export const forUserSources = {
  /** E17: returned only when its session is granted. */
  async message(ctx) {
    const { raw } = await ownedMessage(ctx, ctx.input.params.message_id);
    return json(ctx, 200, raw);
  },

  /** E18: the message must be theirs. */
  async references(ctx) {
    await ownedMessage(ctx, ctx.input.query?.message_id);
    return forward(ctx);
  },

  /** E6: the message must be theirs and in the `session_id` named; the body carries `feedback_content` only. */
  async rating(ctx) {
    const { query, body } = ctx.input;
    if (!(await owns(ctx, query?.session_id))) throw sessionNotFound();
    const { value } = await ownedMessage(ctx, query!.message_id);
    if (value.session_id !== query!.session_id) throw messageNotFound();
    return forward(ctx, body === undefined ? {} : { json: body.feedback_content === undefined ? {} : { feedback_content: body.feedback_content } });
  },

  /** E9 (the relay's route): the named message must be theirs and cite the file; the body goes up alone, rebuilt. */
  async highlight(ctx) {
    const messageId = ctx.input.query?.message_id;
    if (messageId === undefined) throw missingMessage();
    const { value } = await ownedMessage(ctx, messageId);
    const { file_id, text, page } = ctx.input.body as { file_id: string; text: string; page: number };
    if (!cites(value, file_id)) throw fileNotFound();
    return forward(ctx, { query: undefined, json: { file_id, text, page } });
  },
} satisfies Record<string, Policy>;

/** E9 for an admin: the body as validated, without the relay's own query. */
export const highlightAsAdmin: Policy = (ctx) => forward(ctx, { query: undefined });
