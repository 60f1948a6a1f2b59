// kb-voice-qa's CallSnapshot is derived from kb-voice's SessionSnapshot: a status or a field added
// there is in `call.session` too (it used to be a copy that lacked 'ending').
import { describe, expectTypeOf, it } from 'vitest';
import type { SessionSnapshot, SessionStatus } from 'kb-voice';
import type { CallSnapshot, PlainError } from '../../qa/src/types.js';

describe('CallSnapshot', () => {
  it('has every status and field of SessionSnapshot', () => {
    expectTypeOf<CallSnapshot['status']>().toEqualTypeOf<SessionStatus>();
    expectTypeOf<Extract<CallSnapshot['state'], { status: 'ending' }>['status']>().toEqualTypeOf<'ending'>();
    expectTypeOf<keyof CallSnapshot>().toEqualTypeOf<keyof SessionSnapshot>();
    expectTypeOf<CallSnapshot['warmup']>().toEqualTypeOf<SessionSnapshot['warmup']>();
  });

  it('carries errors as JSON (code and message), as the page sends them', () => {
    expectTypeOf<NonNullable<CallSnapshot['error']>>().toEqualTypeOf<PlainError>();
    expectTypeOf<Extract<CallSnapshot['state'], { status: 'failed' }>['error']>().toEqualTypeOf<PlainError>();
  });
});
