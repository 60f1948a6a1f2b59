import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { distPath, requireDist } from './built-dist.js';

describe('the widget as built (dist/widget, dist/kb-voice-widget.js)', () => {
  it('the built entry and the one-file build import in plain Node, twice, without a DOM', () => {
    requireDist('widget/index.js');
    requireDist('kb-voice-widget.js');
    const script = `
      const a = await import(${JSON.stringify(distPath('widget/index.js'))});
      const b = await import(${JSON.stringify(distPath('kb-voice-widget.js'))});
      if (a.defineKbVoiceWidget() !== false || b.defineKbVoiceWidget() !== false) throw new Error('registered without a DOM');
      console.log(typeof a.KbVoiceWidget, typeof b.KbVoiceWidget);`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 15_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('function function');
  });

  it('the one-file build stands alone: it imports no other module (no package, no Node built-in)', async () => {
    requireDist('kb-voice-widget.js');
    const file = distPath('kb-voice-widget.js');
    // esbuild parses it as a module and lists what it imports; everything external, so nothing is followed.
    const result = await esbuild.build({ entryPoints: [file], bundle: true, write: false, metafile: true, format: 'esm', external: ['*'], logLevel: 'silent' });
    const inputs = Object.values(result.metafile.inputs);
    expect(inputs).toHaveLength(1);
    expect(inputs[0]!.imports).toEqual([]);
    expect(readFileSync(file, 'utf8')).toContain('customElements');
  });
});
