import { phaseMs, TIMING_PHASES } from '../phases.js';
import type { CallTurn } from '../types.js';
import type { Percentiles } from './summary.js';

/** One colour per phase, in TIMING_PHASES order. */
const COLOURS = ['#5b8cff', '#2fbf71', '#f0b429', '#b07cff', '#ef5d6a'];

const esc = (text: unknown) => String(text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A turn's perceived latency as one bar split by phase (endpointing, service, network, buffering,
 * playback), each segment as wide as its share of `scale` ms; '' when no phase was measured.
 */
export function waterfallBar(turn: CallTurn, scale: number): string {
  const segments = TIMING_PHASES.map((phase, i) => ({ phase, ms: phaseMs(turn, phase), colour: COLOURS[i]! }));
  if (segments.every((s) => s.ms === null)) return '';
  const body = segments
    .filter((s) => s.ms !== null && s.ms > 0)
    .map((s) => `<i class="ph" style="width:${(s.ms! / scale) * 100}%;background:${s.colour}" title="${esc(s.phase)} ${Math.round(s.ms!)} ms"></i>`)
    .join('');
  const legend = segments.map((s) => `<span><b style="background:${s.colour}"></b>${esc(s.phase)} ${s.ms === null ? '–' : `${Math.round(s.ms)} ms`}</span>`).join('');
  return `<div class="waterfall"><div class="wbar">${body}</div><div class="wlegend">${legend}</div></div>`;
}

/** The phases' p50 and p95, one line. */
export function phaseLine(phases: Record<string, Percentiles>): string {
  const cells = TIMING_PHASES.map((p) => `${esc(p)} ${phases[p]?.p50 ?? '–'} / ${phases[p]?.p95 ?? '–'}`);
  return `<div class="mini"><span>phases p50 / p95 (ms)</span> ${cells.join(' · ')}</div>`;
}

export const WATERFALL_CSS = `
.waterfall{margin-top:6px}.wbar{display:flex;height:12px;border-radius:3px;overflow:hidden;background:#0c111c}.wbar .ph{display:block;height:100%}
.wlegend{display:flex;flex-wrap:wrap;gap:10px;font-size:12px;color:var(--mute);margin-top:3px}.wlegend b{display:inline-block;width:9px;height:9px;border-radius:2px;margin-right:4px}
`;
