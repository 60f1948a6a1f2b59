import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { decodeWav } from '../wav.js';
import { toMono, type Pcm } from './pcm.js';

/**
 * Optional speech through the espeak-ng program. espeak-ng is GPL, so it is never linked into the
 * package: it runs as a separate process (`espeak-ng --stdout`) and only when it is found on PATH.
 */

/** Absolute path of `espeak-ng` on PATH, or null. */
export function findEspeak(env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, process.platform === 'win32' ? 'espeak-ng.exe' : 'espeak-ng');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/** espeak-ng voice for a session language code (`en` → `en-us`, `ja-JP` → `ja`). */
export function espeakVoice(language: string): string {
  const lang = language.toLowerCase().split(/[-_]/)[0] || 'en';
  if (lang === 'en') return 'en-us';
  if (lang === 'zh') return 'cmn';
  return lang;
}

/**
 * Runs `espeak-ng --stdout -v VOICE` with the text on stdin (never as an argument, so text cannot
 * become an option) and decodes the WAV it prints. Rejects on a non-zero exit, no audio or timeout.
 */
export function synthesizeEspeak(bin: string, text: string, language: string, timeoutMs = 20000): Promise<Pcm> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['--stdout', '-v', espeakVoice(language), '-s', '165'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`espeak-ng timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    child.on('error', (err) => { clearTimeout(timer); reject(err); });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`espeak-ng exited with ${code}: ${stderr.trim()}`));
      try {
        const wav = decodeWav(new Uint8Array(Buffer.concat(chunks)));
        if (wav.samples.length === 0) return reject(new Error('espeak-ng produced no audio'));
        resolve({ samples: toMono(wav.samples, wav.channels), sampleRate: wav.sampleRate });
      } catch (err) {
        reject(err);
      }
    });
    child.stdin.on('error', () => { /* reported through close */ });
    child.stdin.end(text);
  });
}
