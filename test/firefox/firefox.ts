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
import { mkdtempSync, rmSync } from 'node:fs';
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
    if (spawnSync('pactl', ['--server', server, 'info'], { stdio: 'ignore', env }).status === 0) return { server, close };
    if (Date.now() > until) {
      await close();
      throw new Error(`pulseaudio did not answer within ${AUDIO_SERVER_READY_MS} ms: ${log.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Firefox with a fake microphone (`media.navigator.streams.fake`: a tone), no permission prompt and
 * autoplay allowed. `audioServer: null` launches it with no audio server at all (what a container
 * without one gives): Web Audio then never runs.
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
      'media.navigator.streams.fake': true,
      'media.navigator.permission.disabled': true,
      'media.autoplay.default': 0,
      'media.autoplay.blocking_policy': 0,
    },
  });
}
