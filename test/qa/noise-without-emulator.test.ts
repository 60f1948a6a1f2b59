import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { prepareNoise } from '../../qa/src/noise.js';

// kb-voice-emulator is an optional peer of kb-voice-qa: here it is not installed.
vi.mock('kb-voice-emulator/lab', () => {
  throw new Error("Cannot find package 'kb-voice-emulator'");
});

const dir = mkdtempSync(path.join(os.tmpdir(), 'kb-voice-qa-noise-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const noDecoder = async (): Promise<Int16Array> => {
  throw new Error('not decoded');
};

describe('kb-voice-qa: noise without kb-voice-emulator', () => {
  it('a named noise fails saying what to install; a recording still plays as recorded', async () => {
    await expect(prepareNoise('cough', {}, noDecoder)).rejects.toThrow(
      "kb-voice-qa: call.noise('cough') uses the noise of kb-voice-emulator/lab, which is not installed: npm install -D kb-voice-emulator (or play a recording as it is: call.noise({ wav: \"noise.wav\" }))",
    );
    const file = path.join(dir, 'noise.wav');
    writeFileSync(file, 'RIFF');
    expect(await prepareNoise({ wav: file }, {}, noDecoder)).toEqual({ file: Buffer.from('RIFF').toString('base64') });
    await expect(prepareNoise({ wav: file }, { snrDb: 10 }, noDecoder)).rejects.toThrow(/call\.noise\(\{ wav \}, \{ snrDb \}\) uses the noise of kb-voice-emulator\/lab, which is not installed/);
  });
});
