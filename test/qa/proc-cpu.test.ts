// The one CPU reader (kb-voice-qa/load): a process's own time, and the load generator's whole
// process tree (caller processes, Chromium pages).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { machineCpuMicros, processCpuMicros, processTreeCpuMicros } from '../../qa/src/load/proc-cpu.js';

// A child that burns 150 ms of CPU (by its own count, however busy the machine), reports its CPU
// time, then waits (alive) until told to exit.
const CHILD = `
const cpu = () => { const { user, system } = process.cpuUsage(); return user + system; };
let x = 0; while (cpu() < 150000) for (let i = 0; i < 1e5; i++) x += Math.random();
const { user, system } = process.cpuUsage();
process.send({ micros: user + system });
process.on('message', () => process.exit(0));
`;

describe.skipIf(!existsSync('/proc/self/stat'))('processTreeCpuMicros and processCpuMicros', () => {
  it('includes the CPU time of a child process', async () => {
    const before = processTreeCpuMicros()!;
    const child = spawn(process.execPath, ['-e', CHILD], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const used = await new Promise<number>((resolve) => child.once('message', (m: { micros: number }) => resolve(m.micros)));
    const during = processTreeCpuMicros()!;
    const own = processCpuMicros(child.pid!)!;
    // The child's own reading is its CPU to a clock tick (10 ms) of rounding.
    expect(Math.abs(own - used)).toBeLessThanOrEqual(20_000);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.send('exit');
    await exited;
    // The child's CPU (its own count, minus a clock tick of rounding) is in the tree's growth.
    expect(used).toBeGreaterThan(100_000);
    expect(during - before).toBeGreaterThanOrEqual(used - 20_000);
  });

  it('is null for a process that does not exist', () => {
    expect(processTreeCpuMicros(2 ** 30)).toBeNull();
    expect(processCpuMicros(2 ** 30)).toBeNull();
  });

  it("reads the machine's busy time as a part of its total, both growing", () => {
    const a = machineCpuMicros();
    let x = 0;
    const until = process.cpuUsage().user + 30_000;
    while (process.cpuUsage().user < until) x += Math.random();
    const b = machineCpuMicros();
    expect(x).toBeGreaterThan(0);
    expect(a.busy).toBeLessThanOrEqual(a.total);
    expect(b.busy).toBeGreaterThan(a.busy);
    expect(b.total).toBeGreaterThan(a.total);
  });
});
