/** Header that names the end user to the OpenAI-compatible upstream. */
export const USER_HEADER = 'openai-safety-identifier';

/** Visible ASCII and spaces, without `%`: a header value as it is. */
const PLAIN = /^[\x20-\x24\x26-\x7e]*$/;

/**
 * The user identifier as a header value: as it is when plain ASCII without `%`, else
 * percent-encoded (UTF-8), which a header can carry (`ユーザー42` → `%E3%83%A6…`). The two forms never
 * collide: an encoded value always holds `%`, a plain one never does. Sessions created on the
 * OpenAI-compatible routes are labelled with this form, so report scoping accepts it too.
 */
export const userHeaderValue = (user: string): string => (PLAIN.test(user) ? user : encodeURIComponent(user));
