import { afterEach, describe, expect, it, vi } from 'vitest';
import * as emulatorModule from 'kb-voice-emulator';
import { startEmulatorService, type VoiceService } from '../../qa/src/service.js';

// The emulator as it is, its startEmulator watched (what kb-voice-qa asks of it).
vi.mock('kb-voice-emulator', async (importOriginal) => {
  const real = await importOriginal<typeof import('kb-voice-emulator')>();
  return { ...real, startEmulator: vi.fn(real.startEmulator) };
});

// issue 46: every kb-voice-qa run printed the relay's "authorize without a secret" warning, from
// kb-voice-qa's own per-worker relay, which the user cannot fix. That relay has a random secret now.

let service: VoiceService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
  vi.restoreAllMocks();
  vi.mocked(emulatorModule.startEmulator).mockClear();
});

describe('kb-voice-qa worker relay', () => {
  it('starts without a warning the user cannot act on', async () => {
    const printed: string[] = [];
    for (const method of ['warn', 'error', 'log', 'info'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(' ')));
    }
    service = await startEmulatorService({ coldRobot: true });
    expect(service.relayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/voice$/);
    expect(printed.filter((line) => /authorize without a secret/.test(line))).toEqual([]);
  });

  it("gives the emulator endOfSpeechMs as its end of speech, beside the voice; refuses one out of range before starting anything", async () => {
    service = await startEmulatorService({ coldRobot: true, voice: 'builtin', endOfSpeechMs: 2000 });
    expect(vi.mocked(emulatorModule.startEmulator).mock.calls[0]![0]).toMatchObject({ realtime: { voice: 'builtin', vad: { stopMs: 2000 } } });
    await service.close();
    service = undefined;
    vi.mocked(emulatorModule.startEmulator).mockClear();
    for (const bad of [50, 20_000, 1.5, Number.NaN]) {
      await expect(startEmulatorService({ coldRobot: true, endOfSpeechMs: bad })).rejects.toThrow(/endOfSpeechMs must be an integer from 100 to 10000 \(ms\)/);
    }
    expect(emulatorModule.startEmulator).not.toHaveBeenCalled();
  });
});
