import { afterEach, describe, expect, it } from 'vitest';
import { parseClientMessage } from '../../emulator/src/realtime/v1-codec.js';
import { Caller } from '../realtime/helpers.js';
import { startTestEmulator } from '../helpers/emulator.js';

// Issue 10: the emulator's data-channel `protocol_error` messages name the field and the reason,
// not only "Invalid input".

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const messageOf = (text: string) => {
  const parsed = parseClientMessage(text);
  return parsed.kind === 'invalid' ? parsed.message : `(${parsed.kind})`;
};

describe('emulator protocol error messages', () => {
  it.each([
    ['invalid "input.text" message: text: Field required', '{"v":1,"type":"input.text"}'],
    ['invalid "input.text" message: text: String should have at least 1 character; text: Text must not be only whitespace', '{"v":1,"type":"input.text","text":""}'],
    ['invalid "input.text" message: text: String should have at most 4000 characters', `{"v":1,"type":"input.text","text":"${'a'.repeat(4001)}"}`],
    ['invalid "input.text" message: text: Input should be a valid string', '{"v":1,"type":"input.text","text":7}'],
    ['invalid "ping" message: t: Input should be a valid number; extra: Extra inputs are not permitted', '{"v":1,"type":"ping","t":"x","extra":1}'],
    ['invalid "ping" message: v: Field required', '{"type":"ping","t":1}'],
    ['invalid "ping" message: v: Input should be 1', '{"v":"1","type":"ping","t":1}'],
    ['invalid message: type: "bogus" is not a client event (expected one of "input.text", "response.interrupt", "session.end", "ping", "input.commit", "input.preconnect")', '{"v":1,"type":"bogus"}'],
    ['invalid message: type: Field required (expected one of "input.text", "response.interrupt", "session.end", "ping", "input.commit", "input.preconnect")', '{"v":1}'],
    ['message must be a JSON object', '[1]'],
  ])('%s', (expected, text) => {
    expect(messageOf(text)).toBe(expected);
  });

  it('says "not valid JSON" with the parser\'s reason', () => {
    expect(messageOf('{"v":1,')).toMatch(/^message is not valid JSON: .+/);
  });

  it('reaches the caller over the data channel as an error event', async () => {
    const emu = await startTestEmulator({ agentBuildMs: 50, realtime: { voice: 'builtin' } });
    cleanups.push(() => emu.close());
    const caller = await Caller.connect((sdp) => emu.api.realtime.connect(emu.robotId, { type: 'offer', sdp, language: 'en' }));
    cleanups.push(() => caller.close());
    await caller.waitFor('session.ready');
    caller.send({ v: 1, type: 'input.text', text: '' });
    expect(await caller.waitFor('error')).toMatchObject({
      code: 'protocol_error',
      message: 'invalid "input.text" message: text: String should have at least 1 character; text: Text must not be only whitespace',
    });
  }, 20_000);
});
