import type { ValidationErrorItem } from 'kb-voice/schemas';

/** An error a route throws to answer with a status and `{ detail }` (a message, or the 422 array). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | ValidationErrorItem[],
  ) {
    super(typeof detail === 'string' ? detail : detail.map((d) => d.msg).join('; '));
    this.name = 'HttpError';
  }
}

/** 404 `{ detail }`. */
export const notFound = (what: string) => new HttpError(404, `${what} not found`);

/** 422 with one `{ loc, msg, type }` entry. */
export const invalid = (loc: (string | number)[], msg: string, type = 'value_error') => new HttpError(422, [{ loc, msg, type }]);
