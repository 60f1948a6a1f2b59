// bench 3's side-by-side comparison (bench/lib/together.mjs): a side's CPU per request is its
// processes' CPU pooled over their requests in the same slice, so a process that served fewer
// requests weighs less; the median is over slices, `whole` over the run.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module of the benchmarks, no types
import { compareSides, failuresOf, startOrder } from '../../bench/lib/together.mjs';

const slice = (cpuUs: number, requests: number, failed = 0) => ({ cpuUs, requests, failed });

describe('bench 3 side by side', () => {
  it('pools a side over its processes in each slice, then takes the median over slices', () => {
    const group = {
      // Slice 1: (300 + 100) / (1 + 1) = 200 µs against (150 + 150) / 2 = 150 µs.
      a1: [slice(300, 1), slice(1000, 10), slice(2000, 10)],
      a2: [slice(100, 1), slice(1000, 10), slice(2000, 10)],
      b1: [slice(150, 1), slice(1000, 10), slice(1000, 10)],
      b2: [slice(150, 1), slice(1000, 10), slice(1000, 10)],
    };
    const c = compareSides(group, ['a1', 'a2'], ['b1', 'b2']);
    expect(c.ratios).toEqual([200 / 150, 1, 2]);
    expect(c.median).toBeCloseTo(200 / 150, 10);
    expect([c.min, c.max]).toEqual([1, 2]);
    // The whole run: 6,400 µs over 42 requests against 4,300 µs over 42.
    expect(c.whole).toBeCloseTo(6400 / 4300, 10);
    expect(c.aUs).toBe(200); // slices 200, 100, 200 µs
    expect(c.bUs).toBe(100); // slices 150, 100, 100 µs
  });

  it('weighs a process by the requests it served, not by its own ratio', () => {
    const group = { a1: [slice(900, 9)], a2: [slice(300, 1)], b: [slice(100, 1)] };
    // (900 + 300) / 10 = 120 µs a request, not the mean of 100 and 300.
    expect(compareSides(group, ['a1', 'a2'], ['b']).median).toBeCloseTo(1.2, 10);
  });

  it('starts every member in every place equally often over the slices (the first places read higher)', () => {
    const members = ['relay1', 'relay2', 'floor1', 'floor2'];
    const places = new Map(members.map((m) => [m, [0, 0, 0, 0]]));
    for (let slice = 0; slice < 24; slice++) {
      const order: string[] = startOrder(members, slice);
      expect([...order].sort()).toEqual([...members].sort());
      order.forEach((m, place) => places.get(m)![place]!++);
    }
    for (const counts of places.values()) expect(counts).toEqual([6, 6, 6, 6]);
  });

  it('counts the requests that did not answer 2xx over every process and slice', () => {
    expect(failuresOf({ a: [slice(1, 1, 2), slice(1, 1)], b: [slice(1, 1, 3)] })).toBe(5);
    expect(failuresOf({ a: [slice(1, 1)] })).toBe(0);
  });
});
