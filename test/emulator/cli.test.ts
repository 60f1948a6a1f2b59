import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseEmulatorArgs } from 'kb-voice-emulator/cli';
import { spawned } from '../helpers/spawned.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `kb-voice emulator ...` from source; `listening` resolves with the announcement once all of it arrived (its last line names openapi.json). */
function run(args: string[]) {
  const p = spawned(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'emulator', ...args], { cwd: root });
  // (the openapi.json line names the URL too: from the first URL through it is the whole announcement)
  const listening = p.printed(/http:\/\/\S+:\d+[\s\S]*openapi\.json\n/).then(() => p.stdout());
  return { child: p.child, listening, exited: p.exit, output: () => ({ out: p.stdout(), err: p.stderr() }) };
}

describe('kb-voice emulator command', () => {
  it('prints its URL and key once listening, serves requests and stops cleanly on SIGTERM', async () => {
    const p = run(['--port', '0', '--host', '127.0.0.1', '--api-key', 'cli-key', '--agent-build-ms', '50']);
    const out = await p.listening;
    const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
    expect(p.output().out).toContain('cli-key');
    const fixtures = await (await fetch(`${url}/_emulator/fixtures`)).json();
    expect(fixtures.apiKey).toBe('cli-key');
    const warm = await fetch(`${url}/v1/robots/${fixtures.robotId}/realtime/warmup`, { method: 'POST', headers: { authorization: 'Bearer cli-key' } });
    expect(await warm.json()).toEqual({ success: true });
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    await expect(fetch(`${url}/openapi.json`)).rejects.toThrow();
  });

  it('stops on SIGINT too', async () => {
    const p = run(['--port', '0']);
    await p.listening;
    p.child.kill('SIGINT');
    expect(await p.exited, JSON.stringify(p.output())).toBe(0);
  });

  it('refuses bad arguments with exit code 2', async () => {
    const p = run(['--port', 'abc']);
    await expect(p.listening).rejects.toThrow(/--port must be an integer/);
    expect(await p.exited).toBe(2);
  });

  it('parses arguments with the documented defaults', () => {
    expect(parseEmulatorArgs([])).toEqual({
      help: false, port: 8787, host: '127.0.0.1', apiKey: 'kbv-emulator-key', agentBuildMs: 5700, maxBodyBytes: 1_048_576, maxRealtimeSessions: 64,
      resumeWindowMs: 120_000, voice: 'auto', fliteVoice: 'kal16',
    });
    expect(parseEmulatorArgs(['--resume-window-ms', '0'])).toMatchObject({ resumeWindowMs: 0 });
    expect(() => parseEmulatorArgs(['--resume-window-ms', '-5'])).toThrow(/--resume-window-ms/);
    expect(parseEmulatorArgs(['--voice', 'builtin', '--flite-voice', 'slt'])).toMatchObject({ voice: 'builtin', fliteVoice: 'slt' });
    expect(() => parseEmulatorArgs(['--voice', 'loud'])).toThrow("--voice must be one of auto, flite, espeak, builtin, got 'loud'");
    expect(() => parseEmulatorArgs(['--flite-voice', 'SLT'])).toThrow(/--flite-voice must be one of kal16, slt/);
    expect(parseEmulatorArgs(['--max-body-bytes', '4096', '--max-sessions', '2'])).toMatchObject({ maxBodyBytes: 4096, maxRealtimeSessions: 2 });
    expect(() => parseEmulatorArgs(['--max-sessions', '0'])).toThrow(/--max-sessions must be at least 1/);
    expect(() => parseEmulatorArgs(['--max-body-bytes', '1e6'])).toThrow(/--max-body-bytes/);
    expect(parseEmulatorArgs(['--port', '0', '--agent-build-ms', '0', '--api-key', 'k'])).toMatchObject({ port: 0, agentBuildMs: 0, apiKey: 'k' });
    expect(() => parseEmulatorArgs(['--port', '70000'])).toThrow(/--port/);
    expect(() => parseEmulatorArgs(['--agent-build-ms', '-5'])).toThrow();
    expect(() => parseEmulatorArgs(['--api-key', ''])).toThrow(/--api-key/);
    expect(() => parseEmulatorArgs(['--verbose'])).toThrow();
  });
});
