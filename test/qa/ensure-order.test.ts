import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { callStartSamples, turnSamples, type MetricSample } from '../../qa/src/load/metrics.js';
import type { CallTurn } from '../../qa/src/types.js';

// Artillery's `ensure` plugin (2.0.21 to 2.0.34 at least) puts each metric of the report in a condition by replacing its
// name with a hash, in the order of the report's keys, by plain substring: when `voice.turns` comes
// before `voice.turns_failed`, `voice.turns_failed == 0` becomes `'<hash>'_failed == 0`, which does not
// parse, and the run fails. The report's keys follow the order the counters first reached it, period
// by period; on a busy machine a period's counters can reach it after a later period's (the example's
// browser run failed so). So every sample set that counts `voice.turns` (or `voice.calls`) names its
// `_failed` twin first: whichever period brings a name first brings its twin before it.

// Artillery 2.0.21 (the repository's pin: the last release for Node 20) has the plugin as its own
// package; later releases bundle it under dist/builtin-packages.
const artilleryDir = path.dirname(createRequire(import.meta.url).resolve('artillery/package.json'));
const bundled = path.join(artilleryDir, 'dist', 'builtin-packages', 'artillery-plugin-ensure', 'dist', 'utils.js');
const ensureUtils = pathToFileURL(existsSync(bundled) ? bundled : createRequire(path.join(artilleryDir, 'package.json')).resolve('artillery-plugin-ensure/utils.js')).href;

/** The counters of a report made of these periods, merged in this order (Artillery's SSMS.pack). */
function counterKeys(...periods: MetricSample[][]): string[] {
  const counters: Record<string, number> = {};
  for (const period of periods) for (const s of period) if (s.kind === 'counter') counters[s.name] = (counters[s.name] ?? 0) + s.value;
  return Object.keys(counters);
}

const turn: CallTurn = { id: 1, input: 'voice', question: 'q', answer: 'a', messageId: 'm', firstResponseMs: 40, perceivedLatencyMs: 700, agentBuildMs: 0, interrupted: false, interruptedBy: null, falseInterruptions: 0, completedAt: '', timing: { speechEndAt: null, endpointingMs: null, serviceMs: null, networkMs: null, bufferingMs: null, playbackMs: null } };

describe('metric order for Artillery ensure conditions', () => {
  it('a condition on voice.turns_failed / voice.calls_failed survives the turn\'s period reaching the report before the call start\'s', async () => {
    const { replaceMetricsWithHashes } = (await import(ensureUtils)) as { replaceMetricsWithHashes(keys: string[], expression: string): string };
    // The turn's period merged first, the call start's (reported late) after it.
    const keys = counterKeys(turnSamples(turn), callStartSamples());
    for (const condition of ['voice.turns_failed == 0 and vusers.failed == 0', 'voice.calls_failed == 0']) {
      const hashed = replaceMetricsWithHashes(keys, condition);
      expect(hashed, `${condition} with keys ${keys.join(', ')}`).not.toMatch(/_failed/);
    }
    // And in the usual order too.
    const usual = counterKeys(callStartSamples(), turnSamples(turn));
    expect(replaceMetricsWithHashes(usual, 'voice.turns_failed == 0 and voice.calls_failed == 0')).not.toMatch(/_failed/);
  });

  it('the zero counters add nothing: a call start counts one call and no failure, a turn one turn', () => {
    const sum = (samples: MetricSample[], name: string) => samples.filter((s) => s.name === name).reduce((a, s) => a + s.value, 0);
    expect([sum(callStartSamples(), 'voice.calls'), sum(callStartSamples(), 'voice.calls_failed'), sum(callStartSamples(), 'voice.turns_failed')]).toEqual([1, 0, 0]);
    expect([sum(turnSamples(turn), 'voice.turns'), sum(turnSamples(turn), 'voice.turns_failed')]).toEqual([1, 0]);
  });
});
