import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/api/errors.js';
import { CLIENT_EVENTS, ClientEvent, SERVER_EVENTS, ServerEvent } from '../../src/schemas/realtime-events.js';
import { encodeClientEvent, parseServerEvent, UnknownEvent } from '../../src/client/protocol.js';
import { VoiceSessionError } from '../../src/client/errors.js';

// The client reads each v1 message with its type's schema (SERVER_EVENTS / CLIENT_EVENTS), not
// through the discriminated unions (their code stays out of the browser entry). These pin what
// the lookup must keep of the union's behaviour.
describe('v1 messages read by their type', () => {
  it('has one schema per type of each union, and no other', () => {
    const types = (union: { def: { options: readonly { def: { shape: { type: { def: { values: unknown[] } } } } }[] } }) =>
      union.def.options.map((o) => o.def.shape.type.def.values[0]).sort();
    expect(Object.keys(SERVER_EVENTS).sort()).toEqual(types(ServerEvent as never));
    expect(Object.keys(CLIENT_EVENTS).sort()).toEqual(types(ClientEvent as never));
  });

  it('parses a known event and reports a malformed one with its field', () => {
    expect(parseServerEvent('{"v":1,"type":"pong","t":5}')).toEqual({ v: 1, type: 'pong', t: 5 });
    const bad = parseServerEvent('{"v":1,"type":"pong","t":"soon"}');
    expect(bad).toBeInstanceOf(VoiceSessionError);
    expect((bad as VoiceSessionError).message).toMatch(/^Invalid data-channel message: pong\.t: /);
  });

  it('knows an unknown v1 type without parsing, and takes no inherited name for a type', () => {
    expect(parseServerEvent('{"v":1,"type":"output.new_thing"}')).toEqual(new UnknownEvent('output.new_thing'));
    for (const inherited of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(parseServerEvent(JSON.stringify({ v: 1, type: inherited }))).toEqual(new UnknownEvent(inherited));
    }
  });

  it('says what is wrong with a message that has no usable type', () => {
    const message = (text: string) => (parseServerEvent(text) as VoiceSessionError).message;
    expect(message('{"v":1}')).toBe('Invalid data-channel message: type: missing');
    expect(message('[1,2]')).toBe('Invalid data-channel message: not an object');
    expect(message('{"v":1,"type":7}')).toBe('Invalid data-channel message: type: not a known event type (7)');
    expect(parseServerEvent('{"v":2,"type":"anything"}')).toBeUndefined();
  });

  it('refuses a client event of no known type, or with a bad field, as a local 422', () => {
    const refused = (event: unknown) => {
      try {
        encodeClientEvent(event as never);
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).local).toBe(true);
        return (error as ValidationError).detail[0]!.loc.join('.');
      }
      throw new Error('not refused');
    };
    expect(refused({ v: 1, type: 'toString' })).toBe('body.type');
    expect(refused({ v: 1, type: 'ping', t: 'x' })).toBe('body.t');
    expect(encodeClientEvent({ v: 1, type: 'ping', t: 3 })).toBe('{"v":1,"type":"ping","t":3}');
  });
});
