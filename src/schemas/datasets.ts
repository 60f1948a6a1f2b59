import * as z from 'zod/mini';
import { BoolOrFalse, DateTimeOut, Int, JsonObject, maybe, PageNumber, PageSize, pageOf, Uuid } from './common.js';

/** E4 request. */
export const RefreshFilesIn = z.strictObject({
  file_id_list: z.array(Uuid),
  learn_type: z.optional(z.int()),
  embedding: z.optional(z.boolean()),
});
export type RefreshFilesIn = z.input<typeof RefreshFilesIn>;

/** Learning state of a dataset file (the project's choice; it changes over time). */
export const FileStatus = z.enum(['waiting', 'learning', 'learned', 'failed']);
export type FileStatus = z.infer<typeof FileStatus>;

/** E16 response and element of E4's answer (the project's choice). */
export const DatasetFile = z.looseObject({
  id: Uuid,
  dataset_id: z.string(),
  name: z.string(),
  type: z.string(),
  size: z.number(),
  status: FileStatus,
  url: maybe(z.string()),
  metadata: maybe(JsonObject),
  created_at: maybe(DateTimeOut),
  updated_at: maybe(DateTimeOut),
});
export type DatasetFile = z.infer<typeof DatasetFile>;

/** E4 response (the project's choice): the files whose learning restarted. */
export const RefreshFilesOut = z.looseObject({ success: z.boolean(), files: z.array(DatasetFile) });
export type RefreshFilesOut = z.infer<typeof RefreshFilesOut>;

/** Link kinds of E5 (`links_type` query). */
export const LinkKind = z.enum(['file', 'website', 'sitemap', 'gitbook', 'faq', 'api', 'integration']);
export type LinkKind = z.infer<typeof LinkKind>;

/** E5 query (CONTRACT.md). */
export const AddLinksQuery = z.strictObject({ links_type: z._default(LinkKind, 'website') });
export type AddLinksQuery = z.input<typeof AddLinksQuery>;

/** E5 request. */
export const AddLinksIn = z.strictObject({
  links: z.array(z.string().check(z.minLength(1))),
  spa: z._default(z.boolean(), false),
  max_images: z._default(z.int().check(z.gte(0)), 10),
});
export type AddLinksIn = z.input<typeof AddLinksIn>;

/** A link recorded in a dataset (the project's choice). */
export const DatasetLink = z.looseObject({
  id: Uuid,
  url: z.string(),
  type: LinkKind,
  spa: z.boolean(),
  max_images: z.int(),
  status: FileStatus,
  created_at: maybe(DateTimeOut),
});
export type DatasetLink = z.infer<typeof DatasetLink>;

/** E5 response (the project's choice). */
export const AddLinksOut = z.looseObject({ success: z.boolean(), links: z.array(DatasetLink) });
export type AddLinksOut = z.infer<typeof AddLinksOut>;

/** E7 request (a JSON body on a DELETE). */
export const DeleteFilesIn = z.strictObject({ file_ids: z.array(Uuid) });
export type DeleteFilesIn = z.input<typeof DeleteFilesIn>;

/** E7 response (the project's choice). */
export const DeleteFilesOut = z.looseObject({ success: z.boolean(), deleted: z.array(z.string()) });
export type DeleteFilesOut = z.infer<typeof DeleteFilesOut>;

/** E8 request. */
export const DatasetConfigsIn = z.strictObject({ metadata: JsonObject });
export type DatasetConfigsIn = z.input<typeof DatasetConfigsIn>;

/** E8 response (the project's choice): the dataset's whole configuration after the update. */
export const DatasetConfigsOut = z.looseObject({ dataset_id: z.string(), metadata: JsonObject });
export type DatasetConfigsOut = z.infer<typeof DatasetConfigsOut>;

/** The user object. */
export const User = z.looseObject({
  id: Uuid,
  user_id: maybe(z.string()),
  email: maybe(z.string()),
  name: maybe(z.string()),
  salt: maybe(z.string()),
  picture: maybe(z.string()),
  locale: maybe(z.string()),
  corporate: BoolOrFalse,
  is_independent: BoolOrFalse,
});
export type User = z.infer<typeof User>;

/** A shared URL of an integration detail. */
export const ShareUrl = z.looseObject({
  id: Uuid,
  created_at: maybe(DateTimeOut),
  updated_at: maybe(DateTimeOut),
  url: z.string(),
  recursive: maybe(z.boolean()),
});
export type ShareUrl = z.infer<typeof ShareUrl>;

/** Integration detail (the shape shown by the spec; other types may carry other members). */
export const IntegrationDetail = z.looseObject({
  id: Uuid,
  created_at: maybe(DateTimeOut),
  updated_at: maybe(DateTimeOut),
  app_id: maybe(z.string()),
  app_secret: maybe(z.string()),
  share_urls: maybe(z.array(ShareUrl)),
});
export type IntegrationDetail = z.infer<typeof IntegrationDetail>;

/**
 * Integration types accepted by E20's `type` filter (the project's choice: the spec shows the
 * filter as an array of an enum without its values).
 */
export const IntegrationType = z.enum(['feishu', 'lark', 'notion', 'confluence', 'google_drive']);
export type IntegrationType = z.infer<typeof IntegrationType>;

/** An integration rule (item of E20). */
export const IntegrationRule = z.looseObject({
  id: Uuid,
  created_at: maybe(DateTimeOut),
  updated_at: maybe(DateTimeOut),
  name: maybe(z.string()),
  type: maybe(z.string()),
  file_list_sync_status: maybe(z.string()),
  created_by: maybe(User),
  notification_emails: maybe(z.unknown()),
  sync_interval: maybe(Int),
  last_synced_at: maybe(DateTimeOut),
  file_count: maybe(Int),
  detail: maybe(IntegrationDetail),
});
export type IntegrationRule = z.infer<typeof IntegrationRule>;

/** E20 query. */
export const IntegrationsQuery = z.strictObject({
  type: z.optional(z.array(IntegrationType)),
  page: z._default(PageNumber, 1),
  size: z._default(PageSize, 50),
  order_by: z.optional(z.string()),
});
export type IntegrationsQuery = z.input<typeof IntegrationsQuery>;

/** E20 response. */
export const IntegrationPage = pageOf(IntegrationRule);
export type IntegrationPage = z.infer<typeof IntegrationPage>;
