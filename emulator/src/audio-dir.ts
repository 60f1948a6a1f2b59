import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Folder names are `kb-voice-emulator-<pid>-<random>`: the pid tells a later start whether the owner still runs. */
const PREFIX = 'kb-voice-emulator-';
const OWNED = /^kb-voice-emulator-(\d+)-/;

/** Whether a process with this id runs (EPERM: it does, as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the recorded-audio folders that killed emulators left in `parent` (the temp folder):
 * only `kb-voice-emulator-<pid>-*` folders whose process no longer runs. Folders of running
 * processes and any other names are left alone. Resolves the names removed.
 */
export async function sweepAbandonedAudioDirs(parent = tmpdir()): Promise<string[]> {
  const entries = await readdir(parent, { withFileTypes: true }).catch(() => []);
  const removed: string[] = [];
  for (const entry of entries) {
    const pid = Number(OWNED.exec(entry.name)?.[1]);
    if (!entry.isDirectory() || !(pid > 1) || running(pid)) continue;
    await rm(join(parent, entry.name), { recursive: true, force: true }).then(
      () => removed.push(entry.name),
      () => undefined, // another emulator swept it first, or it is not ours to remove
    );
  }
  return removed;
}

/** Creates this emulator's recorded-audio folder in the temp folder, after sweeping abandoned ones. */
export async function createAudioDir(): Promise<string> {
  await sweepAbandonedAudioDirs();
  return mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`));
}
