import { afterEach, describe, expect, it, vi } from 'vitest';
import { startEmulatorService, type VoiceService } from '../../qa/src/service.js';

// issue 46: every kb-voice-qa run printed the relay's "authorize without a secret" warning, from
// kb-voice-qa's own per-worker relay, which the user cannot fix. That relay has a random secret now.

let service: VoiceService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
  vi.restoreAllMocks();
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
});
