import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnEmulator, type EmulatorProcess } from './helpers/emulator-process.js';

/** The emulator folders in `dir` (tsx keeps its own cache folder there too). */
const emulatorDirs = async (dir: string) => (await readdir(dir)).filter((n) => n.startsWith('kb-voice-emulator-')).sort();

// Issue 10: a killed emulator (SIGKILL: no cleanup) leaves its recorded-audio folder behind; the
// next emulator to start sweeps such folders, but only those whose owning process is gone.

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('temp audio folder of a killed emulator', () => {
  it('is removed at the next start; folders of live processes and unknown folders are kept', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'kbv-faults-sweep-'));
    cleanups.push(() => rm(tmp, { recursive: true, force: true }));
    const start = async () => {
      const p: EmulatorProcess = await spawnEmulator({ env: { TMPDIR: tmp } });
      cleanups.push(() => p.stop());
      return p;
    };

    const first = await start();
    const left = await emulatorDirs(tmp);
    expect(left).toEqual([expect.stringMatching(new RegExp(`^kb-voice-emulator-${first.pid}-`))]);
    expect((await readdir(join(tmp, left[0]!))).length).toBeGreaterThan(0); // the seeded recordings
    await first.crash();
    expect(await emulatorDirs(tmp)).toEqual(left); // nothing cleaned up after a SIGKILL

    // A live owner (this test process) and folders not named by an emulator stay untouched.
    const live = `kb-voice-emulator-${process.pid}-live`;
    const foreign = 'kb-voice-emulator-notapid';
    await mkdir(join(tmp, live));
    await mkdir(join(tmp, foreign));

    const second = await start();
    const now = await emulatorDirs(tmp);
    expect(now).not.toContain(left[0]);
    expect(now).toContain(live);
    expect(now).toContain(foreign);
    expect(now.filter((n) => n.startsWith(`kb-voice-emulator-${second.pid}-`))).toHaveLength(1);

    await second.stop();
    expect(await emulatorDirs(tmp)).toEqual([foreign, live].sort());
  }, 60_000);
});
