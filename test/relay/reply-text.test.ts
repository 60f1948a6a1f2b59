import { describe, expect, it } from 'vitest';
import { ReceivedReply, type Body } from '../../src/relay/message.js';
import { readText, TooLarge } from '../../src/relay/reply-text.js';

const reply = (body: Uint8Array | Body | null, headers?: Record<string, string>) => new ReceivedReply(200, new Headers(headers), body, () => {});
async function* pieces(...parts: Uint8Array[]): Body {
  for (const p of parts) yield p;
}

describe('readText (the relay reading an upstream reply)', () => {
  it('decodes bytes and streamed pieces, a character split across pieces kept whole', async () => {
    const bytes = Buffer.from('{"a":"日本"}', 'utf8');
    expect(await readText(reply(bytes), 1000)).toBe('{"a":"日本"}');
    expect(await readText(reply(pieces(bytes.subarray(0, 8), bytes.subarray(8))), 1000)).toBe('{"a":"日本"}');
    expect(await readText(reply(null), 1000)).toBe('');
  });

  it('one reply ending inside a character leaves nothing behind for the next (the decoder is shared)', async () => {
    const cut = Buffer.from('ok €', 'utf8').subarray(0, 5); // the euro sign's first two of three bytes
    expect(await readText(reply(cut), 1000)).toBe('ok \uFFFD');
    expect(await readText(reply(Buffer.from('A')), 1000)).toBe('A');
    expect(await readText(reply(pieces(cut)), 1000)).toBe('ok \uFFFD');
    expect(await readText(reply(pieces(Buffer.from([0x82, 0xac]), Buffer.from('B'))), 1000)).toBe('\uFFFD\uFFFDB');
  });

  it('refuses a body over maxBytes, declared or read', async () => {
    await expect(readText(reply(Buffer.from('12345'), { 'content-length': '9' }), 8)).rejects.toBeInstanceOf(TooLarge);
    await expect(readText(reply(Buffer.from('123456789')), 8)).rejects.toBeInstanceOf(TooLarge);
    await expect(readText(reply(pieces(Buffer.from('12345'), Buffer.from('6789'))), 8)).rejects.toBeInstanceOf(TooLarge);
    expect(await readText(reply(pieces(Buffer.from('12345'), Buffer.from('678'))), 8)).toBe('12345678');
  });
});
