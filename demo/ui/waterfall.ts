import { TIMING_PHASES, type Turn } from 'kb-voice';
import { el, formatMs } from './dom.js';

/** One colour per phase of `Turn.timing`, in TIMING_PHASES order. */
const COLOURS = ['#5b8cff', '#2fbf71', '#f0b429', '#b07cff', '#ef5d6a'];

/**
 * Where a turn's perceived latency went: one bar split by phase (endpointing, service, network,
 * buffering, playback; docs/quality.md "Where the time goes"), each segment as wide as its share of
 * the turn's total; null when no phase was measured (a typed question without answer audio).
 */
export function renderWaterfall(turn: Turn): HTMLElement | null {
  const phases = TIMING_PHASES.map((phase, i) => ({ phase, ms: turn.timing?.[`${phase}Ms`] ?? null, colour: COLOURS[i]! }));
  const total = phases.reduce((sum, p) => sum + (p.ms ?? 0), 0);
  if (total <= 0) return null;
  return el(
    'div',
    { class: 'waterfall', 'data-testid': 'turn-waterfall', role: 'img', 'aria-label': phases.map((p) => `${p.phase} ${p.ms === null ? 'not measured' : formatMs(p.ms)}`).join(', ') },
    el(
      'div',
      { class: 'waterfall-bar', style: 'display:flex;height:10px;border-radius:3px;overflow:hidden;background:#0002' },
      ...phases.filter((p) => p.ms !== null && p.ms > 0).map((p) =>
        el('span', { 'data-phase': p.phase, 'data-ms': p.ms!, title: `${p.phase} ${formatMs(p.ms!)}`, style: `width:${(p.ms! / total) * 100}%;background:${p.colour}` }),
      ),
    ),
    el(
      'div',
      { class: 'waterfall-legend', style: 'display:flex;flex-wrap:wrap;gap:10px;font-size:12px;opacity:.8' },
      ...phases.map((p) => el('span', {}, el('b', { style: `display:inline-block;width:8px;height:8px;margin-right:4px;background:${p.colour}` }), `${p.phase} ${p.ms === null ? '–' : formatMs(p.ms)}`)),
    ),
  );
}
