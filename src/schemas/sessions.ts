import * as z from 'zod/mini';
import { DateTime, DateTimeOut, Int, JsonObject, maybe, Num, PageNumber, PageSize, pageOf, Uuid } from './common.js';

/** A message of a session (item of E19, body of E17). */
export const SessionMessage = z.looseObject({
  id: Uuid,
  session_id: z.string(),
  created_at: maybe(DateTimeOut),
  question: maybe(z.string()),
  answer: maybe(z.string()),
  anonymous_username: maybe(z.string()),
  user_id: maybe(z.string()),
  total_tokens: maybe(Int),
  history_conversation_count: maybe(Int),
  first_response_time: maybe(Num),
  rating: maybe(Int),
  feedback_content: maybe(z.string()),
  reference_list: maybe(z.unknown()),
  reference_indexes: maybe(z.unknown()),
  is_test: maybe(z.boolean()),
  faq_id: maybe(Uuid),
  comes_from: maybe(z.string()),
  llm_can_answer: maybe(z.boolean()),
  title: maybe(z.string()),
  url: maybe(z.string()),
  model: maybe(z.string()),
  question_metadata: maybe(z.unknown()),
  status: maybe(z.string()),
  is_correct: maybe(z.boolean()),
  transfer_to_human: maybe(z.boolean()),
  canvas: maybe(z.unknown()),
  tags: maybe(z.array(z.unknown())),
  session_message_metadata: maybe(z.array(z.unknown())),
  default_dataset_id: maybe(z.string()),
  citation: maybe(z.array(z.unknown())),
});
export type SessionMessage = z.infer<typeof SessionMessage>;

/** E19 query (CONTRACT.md). */
export const SessionMessagesQuery = z.strictObject({
  session_id: z.string().check(z.minLength(1)),
  page: z._default(PageNumber, 1),
  size: z._default(PageSize, 50),
  end_time: z.optional(DateTime),
  order_by: z.optional(z.string()),
});
export type SessionMessagesQuery = z.input<typeof SessionMessagesQuery>;

/** E19 response. */
export const SessionMessagePage = pageOf(SessionMessage);
export type SessionMessagePage = z.infer<typeof SessionMessagePage>;

/** Request source of E6. */
export const RequestSource = z.enum(['widget', 'api', 'playground', 'share']);
export type RequestSource = z.infer<typeof RequestSource>;

/** E6 query (CONTRACT.md): rating 1 good, -1 bad, 0 cleared. */
export const MessageRatingQuery = z.strictObject({
  session_id: z.string().check(z.minLength(1)),
  message_id: Uuid,
  rating: z.int().check(z.gte(-1), z.lte(1)),
  source: z.optional(RequestSource),
});
export type MessageRatingQuery = z.input<typeof MessageRatingQuery>;

/** E6 body (optional as a whole). */
export const MessageRatingIn = z.strictObject({
  feedback_content: z.optional(z.nullable(z.string())),
  feedback_metadata: z.optional(z.nullable(JsonObject)),
});
export type MessageRatingIn = z.input<typeof MessageRatingIn>;

/** E6 response (the project's choice): the updated message. */
export const MessageRatingOut = SessionMessage;
export type MessageRatingOut = SessionMessage;

/** E15 response (the project's choice): the deletion status, returned before deletion finishes. */
export const SessionDeleteOut = z.looseObject({
  session_id: z.string(),
  status: z.enum(['deleting', 'deleted']),
});
export type SessionDeleteOut = z.infer<typeof SessionDeleteOut>;

/** E18 query (CONTRACT.md). */
export const ReferencesQuery = z.strictObject({ message_id: z.string().check(z.minLength(1)) });
export type ReferencesQuery = z.input<typeof ReferencesQuery>;

/** One knowledge reference behind an answer (the project's choice). */
export const Reference = z.looseObject({
  id: z.string(),
  title: maybe(z.string()),
  url: maybe(z.string()),
  dataset_id: maybe(z.string()),
  file_id: maybe(z.string()),
  content: maybe(z.string()),
  score: maybe(z.number()),
  /** 1-based page of a PDF the `content` sentence is on (the emulator's; CONTRACT.md "Sources and ratings"). */
  page: maybe(z.int()),
});
export type Reference = z.infer<typeof Reference>;

/** E18 response (the project's choice). */
export const ReferencesOut = z.looseObject({
  message_id: z.string(),
  references: z.array(Reference),
});
export type ReferencesOut = z.infer<typeof ReferencesOut>;
