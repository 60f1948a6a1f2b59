/**
 * Firefox ESR for the Firefox suite (test/firefox, `vitest.firefox.config.ts`): Debian's `firefox-esr`
 * driven by puppeteer-core over WebDriver BiDi (Playwright's own Firefox build is not reachable here,
 * and it is not the Firefox users' CI has), and a private PulseAudio server per run: Firefox's Web
 * Audio needs an audio output device, without one every AudioContext stays `suspended`.
 *
 * The server is ours alone (its socket in a temporary directory, a null sink as the speakers), so
 * the suite never plays through a developer's speakers nor touches their sound settings.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { findFirefox, hasPulseAudio, NO_FIREFOX_MESSAGE, NO_PULSEAUDIO_MESSAGE } from '../../scripts/firefox.mjs';

export { findFirefox };

export interface AudioServer {
  /** `unix:/…/native`, for Firefox's `PULSE_SERVER`. */
  readonly server: string;
  close(): Promise<void>;
}

/** The WAV the microphone loops (48 kHz mono PCM16: a spoken question, then silence; test/fixtures/audio/README.md). */
export const MIC_WAV = fileURLToPath(new URL('../fixtures/audio/e2e-question.wav', import.meta.url));

/** The PCM16 samples of a 48 kHz mono WAV (its `data` chunk). */
function wavData(file: string): Buffer {
  const wav = readFileSync(file);
  for (let at = 12; at + 8 <= wav.length;) {
    const id = wav.toString('ascii', at, at + 4);
    const size = wav.readUInt32LE(at + 4);
    if (id === 'data') return wav.subarray(at + 8, at + 8 + size);
    at += 8 + size + (size % 2);
  }
  throw new Error(`${file}: no data chunk`);
}

/** How long the server may take to accept its first client on a busy machine. */
const AUDIO_SERVER_READY_MS = 30_000;

/** Starts PulseAudio with a null sink on a private socket; resolves once `pactl` is answered. */
export async function startAudioServer(): Promise<AudioServer> {
  if (!hasPulseAudio()) throw new Error(NO_PULSEAUDIO_MESSAGE);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kb-voice-pulse-'));
  const socket = path.join(dir, 'native');
  const env = { ...process.env, HOME: dir, XDG_RUNTIME_DIR: dir, XDG_CONFIG_HOME: dir, PULSE_RUNTIME_PATH: dir };
  const child: ChildProcess = spawn('pulseaudio', [
    '-n', '--daemonize=no', '--exit-idle-time=-1', '--disallow-exit', '--use-pid-file=no', '--log-target=stderr', '--log-level=error',
    '-L', `module-native-protocol-unix socket=${socket} auth-anonymous=1`,
    '-L', 'module-null-sink sink_name=speakers',
    // The microphone: what is played into the `mic` sink comes out of its monitor, the default source.
    '-L', 'module-null-sink sink_name=mic',
  ], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const server = `unix:${socket}`;
  const close = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const until = Date.now() + AUDIO_SERVER_READY_MS;
  for (;;) {
    if (child.exitCode !== null) {
      await close();
      throw new Error(`pulseaudio exited (${child.exitCode}): ${log.trim()}`);
    }
    if (spawnSync('pactl', ['--server', server, 'info'], { stdio: 'ignore', env }).status === 0) {
      spawnSync('pactl', ['--server', server, 'set-default-sink', 'speakers'], { stdio: 'ignore', env });
      spawnSync('pactl', ['--server', server, 'set-default-source', 'mic.monitor'], { stdio: 'ignore', env });
      // The WAV, looped into the microphone at the sink's pace (pacat reads as fast as it plays).
      const pcm = wavData(MIC_WAV);
      const player = spawn('pacat', ['--server', server, '--device', 'mic', '--raw', '--format=s16le', '--rate=48000', '--channels=1'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
      const feed = () => {
        while (player.stdin.writable && player.stdin.write(pcm));
      };
      player.stdin.on('drain', feed);
      player.stdin.on('error', () => undefined);
      feed();
      const stopServer = close;
      return {
        server,
        close: async () => {
          player.stdin.off('drain', feed);
          player.kill('SIGTERM');
          await stopServer();
        },
      };
    }
    if (Date.now() > until) {
      await close();
      throw new Error(`pulseaudio did not answer within ${AUDIO_SERVER_READY_MS} ms: ${log.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Firefox with no permission prompt and autoplay allowed. With an audio server its microphone is
 * the server's `mic.monitor`, into which the spoken question (MIC_WAV) loops, like Chromium's
 * `--use-file-for-fake-audio-capture`; `audioServer: null` launches it with no audio server at all
 * (what a container without one gives): Web Audio then never runs, and the microphone is Firefox's
 * fake one (`media.navigator.streams.fake`, a tone).
 */
export async function launchFirefox(audioServer: AudioServer | null): Promise<Browser> {
  const executablePath = findFirefox();
  if (!executablePath) throw new Error(NO_FIREFOX_MESSAGE);
  return puppeteer.launch({
    browser: 'firefox',
    executablePath,
    headless: true,
    protocolTimeout: 120_000,
    env: { ...process.env, PULSE_SERVER: audioServer?.server ?? 'unix:/nonexistent/kb-voice-no-audio-server' },
    extraPrefsFirefox: {
      // With an audio server the microphone is its `mic.monitor` (the WAV); without one, Firefox's fake tone.
      'media.navigator.streams.fake': audioServer === null,
      'media.navigator.permission.disabled': true,
      'media.autoplay.default': 0,
      'media.autoplay.blocking_policy': 0,
    },
  });
}
