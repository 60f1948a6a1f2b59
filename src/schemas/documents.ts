import * as z from 'zod/mini';
import { maybe, Uuid } from './common.js';

/** E9 request. */
export const PdfHighlightIn = z.strictObject({
  file_id: z.string().check(z.minLength(1)),
  text: z.string().check(z.minLength(1)),
  page: z.int().check(z.gte(1)),
});
export type PdfHighlightIn = z.input<typeof PdfHighlightIn>;

/**
 * Query of E9 through the relay (CONTRACT.md, "Sources and ratings"): the message whose references
 * cite the file. Required of a relay `user` (the relay checks the message is theirs and cites the
 * file); never sent to the service.
 */
export const PdfHighlightRelayQuery = /* @__PURE__ */ z.strictObject({ message_id: /* @__PURE__ */ z.optional(Uuid) });
export type PdfHighlightRelayQuery = z.input<typeof PdfHighlightRelayQuery>;

/**
 * One highlight box (the project's choice; the spec shows only a list): PDF user-space points of
 * the page, origin at the top-left, with the page number (1-based) and the matched text.
 */
export const PdfPosition = z.looseObject({
  page: z.int(),
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
  text: maybe(z.string()),
});
export type PdfPosition = z.infer<typeof PdfPosition>;

/** E9 response. */
export const PdfHighlightOut = z.looseObject({
  positions: z.array(z.unknown()),
  success: z.boolean(),
  message: maybe(z.string()),
});
export type PdfHighlightOut = z.infer<typeof PdfHighlightOut>;
