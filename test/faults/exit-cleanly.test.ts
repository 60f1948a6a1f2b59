import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FakeMicrophone } from 'kb-voice-emulator';
import { describe, expect, it } from 'vitest';

// Issue 14: the Node QA script of docs/testing.md (FakeMicrophone driving a VoiceSession against the
// emulator) died with SIGSEGV at exit in every run once it ended the session: @roamhq/wrtc objects
// still alive when Node tears the environment down are finalized newest first, so an
// RTCAudioSource or RTCRtpReceiver outlived the track it references (emulator/src/realtime/wrtc-exit.ts).
// The script closes what it opened and never calls process.exit(): it must end by itself, code 0,
// no signal, and not hang (no handle left open). Several runs: the crash depended on no timing, but
// a fix that only lowers its odds must not pass.

const root = fileURLToPath(new URL('../..', import.meta.url));
const script = fileURLToPath(new URL('./fixtures/qa-script.ts', import.meta.url));

interface Exit { code: number | null; signal: NodeJS.Signals | null; output: string; hung: boolean }

/**
 * Hung: still running this long after the script said it closed everything (a handle left open).
 * Counted from its 'closed', not from its start: a call on a busy machine is slow, not hung.
 */
const HUNG_AFTER_CLOSED_MS = 15_000;
/** The whole run's cap, for a script that never gets to 'closed' (the call itself stuck). */
const RUN_CAP_MS = 150_000;

function runScript(scenario: string): Promise<Exit> {
  return new Promise((resolve) => {
    // tsx resolves kb-voice and kb-voice-emulator to their sources (tsconfig.json paths), as vitest does.
    const child = spawn(process.execPath, ['--import', 'tsx', script, scenario], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let hung = false;
    const kill = () => {
      hung = true;
      child.kill('SIGKILL');
    };
    let timer = setTimeout(kill, RUN_CAP_MS);
    child.stdout.on('data', (b: Buffer) => {
      output += b;
      if (/^closed$/m.test(output) && !hung) {
        clearTimeout(timer);
        timer = setTimeout(kill, HUNG_AFTER_CLOSED_MS);
      }
    });
    child.stderr.on('data', (b: Buffer) => (output += b));
    // 'close' (the process ended and its output was read), not 'exit', which can come before the last output.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output, hung });
    });
  });
}

describe('a Node QA script exits by itself', () => {
  for (const [scenario, runs] of [['voice', 3], ['text', 2]] as const) {
    it(`${scenario} call, then end + close: exit code 0 in each of ${runs} runs`, async () => {
      // Side by side: the runs mostly wait on real-time audio, and the crash needed no particular timing.
      const exits = await Promise.all(Array.from({ length: runs }, () => runScript(scenario)));
      exits.forEach((exit, i) => {
        // A hung run names the script's last progress line (started, asked, answer: …, closed).
        const last = exit.hung ? `last printed: ${exit.output.trim().split('\n').at(-1) || '(nothing)'}` : 'exited';
        expect({ run: i + 1, code: exit.code, signal: exit.signal, hung: exit.hung, last }, exit.output).toEqual({ run: i + 1, code: 0, signal: null, hung: false, last: 'exited' });
        expect(exit.output).toContain('answer: true');
        expect(exit.output).toContain('closed');
      });
    }, RUN_CAP_MS + 30_000);
  }
});

describe('the exit-time collection', () => {
  it('is bounded: a holder the app keeps alive does not keep the process running', async () => {
    const code = [
      "import { releaseBeforeExit } from './emulator/src/realtime/wrtc-exit.ts';",
      'globalThis.kept = {};',
      'releaseBeforeExit(globalThis.kept);',
      "let n = 0; process.on('beforeExit', () => n++);",
      "process.on('exit', () => console.log(`beforeExit ${n} times`));",
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: root });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b));
    const exitCode = await new Promise((resolve) => child.on('close', resolve));
    expect(exitCode).toBe(0);
    expect(output.trim()).toBe('beforeExit 6 times'); // 5 collections, then it lets the process end
  }, 60_000);
});

describe('FakeMicrophone.close()', () => {
  it('releases its source: a closed microphone opens no more tracks', async () => {
    const mic = new FakeMicrophone();
    const stream = await mic.open();
    mic.close();
    await expect(mic.open()).rejects.toThrow(/closed/);
    expect(mic.opened).toEqual([undefined]);
    // Speaking into a closed microphone ends at once instead of waiting for frames never sent.
    await mic.play(new Int16Array(4800));
    expect(stream.getTracks()).toHaveLength(1);
  });
});
