// CPU per request of proxy processes measured side by side (bench 3's user rows).
//
// Why: one after the other, even two processes of the same code read 0.70–1.51× each other round to
// round on this 2-core machine (closed loop: each round's batching and contention differ), so a
// median of five rounds moves ±0.1 between runs. Here every process of a group is loaded at the
// same time, each at the same fixed offered rate (open loop, below saturation: no process takes load
// from another, so none batches more), in short slices; a slice's ratios compare processes that
// lived through the same second of the machine; the order the load starts them in turns every slice
// (a fixed order favours the last). Each side of a comparison is two processes, so one
// process's luck (heap layout, JIT decisions: ±5 % seen between twins) is halved. Warm-up slices
// (the change from closed-loop warm-up to a fixed rate costs 2–4× for a few seconds) are dropped.
import { fork } from 'node:child_process';
import path from 'node:path';
import { benchDir } from './common.mjs';
import { median } from './stats.mjs';

const loadScript = path.join(benchDir, 'lib', 'together-child.mjs');

/**
 * Runs `slices` measured slices (after `warmSlices` dropped ones) of `sliceS` seconds for each group,
 * the groups taking turns slice by slice. `groups`: `{ [group]: { [member]: { proxy, url, headers } } }`
 * where `proxy.cpu()` resolves `{ cpu, requests }` of the process serving `url`. Resolves
 * `{ [group]: { [member]: [{ cpuUs, requests, failed }…] } }`, one entry per measured slice.
 */
export async function measureTogether(groups, { rate, connections = 4, sliceS = 1, warmSlices = 4, slices = 24 }) {
  const loader = fork(loadScript, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = new Promise((_, reject) => loader.once('exit', (code) => reject(new Error(`together-child exited (${code})`))));
  exited.catch(() => {});
  const next = () => Promise.race([new Promise((resolve) => loader.once('message', resolve)), exited]);
  try {
    await next();
    const out = Object.fromEntries(Object.entries(groups).map(([g, members]) => [g, Object.fromEntries(Object.keys(members).map((m) => [m, []]))]));
    for (let slice = 0; slice < warmSlices + slices; slice++) {
      for (const [g, members] of Object.entries(groups)) {
        // The load starts its targets in list order, and the first ones read up to 15 % more CPU per
        // request than the last (twins at 600 req/s: 1.15, 1.14, 1.07, 1.00): rotated every slice.
        const list = startOrder(Object.entries(members), slice);
        const before = await Promise.all(list.map(([, m]) => m.proxy.cpu()));
        loader.send({ targets: list.map(([, m]) => ({ url: m.url, headers: m.headers })), rate, connections, durationS: sliceS });
        const done = await next();
        if (done.error) throw new Error(done.error);
        const after = await Promise.all(list.map(([, m]) => m.proxy.cpu()));
        if (slice < warmSlices) continue;
        list.forEach(([name], i) => {
          const cpuUs = after[i].cpu.user - before[i].cpu.user + after[i].cpu.system - before[i].cpu.system;
          out[g][name].push({ cpuUs, requests: after[i].requests - before[i].requests, failed: done.failed[i] });
        });
      }
    }
    return out;
  } finally {
    loader.kill();
  }
}

/** The members in the order the load starts them in slice `slice`: turned by one every slice, so over a multiple of their count each starts in every place equally often. */
export const startOrder = (members, slice) => [...members.slice(slice % members.length), ...members.slice(0, slice % members.length)];

/** CPU per request of some members pooled (their CPU over their requests), per slice. */
const pooled = (group, members, i) => members.reduce((s, m) => s + group[m][i].cpuUs, 0) / Math.max(1, members.reduce((s, m) => s + group[m][i].requests, 0));

/**
 * Side `a` against side `b` of a measured group (each a list of members): per slice, the pooled CPU
 * per request of `a` over that of `b`; `median` of those, their range, and `whole`: the ratio over all
 * slices together. Also each side's median CPU per request (µs).
 */
export function compareSides(group, a, b) {
  const n = group[a[0]].length;
  const ratios = Array.from({ length: n }, (_, i) => pooled(group, a, i) / pooled(group, b, i));
  const total = (side) => side.reduce((s, m) => s + group[m].reduce((t, x) => t + x.cpuUs, 0), 0) / side.reduce((s, m) => s + group[m].reduce((t, x) => t + x.requests, 0), 0);
  return {
    median: median(ratios),
    min: Math.min(...ratios),
    max: Math.max(...ratios),
    whole: total(a) / total(b),
    ratios,
    aUs: median(Array.from({ length: n }, (_, i) => pooled(group, a, i))),
    bUs: median(Array.from({ length: n }, (_, i) => pooled(group, b, i))),
  };
}

/** Requests that did not answer 2xx, summed over a group's members and slices. */
export const failuresOf = (group) => Object.values(group).reduce((s, xs) => s + xs.reduce((t, x) => t + x.failed, 0), 0);
