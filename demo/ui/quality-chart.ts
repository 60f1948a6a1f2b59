import type { CallQuality } from 'kb-voice';
import { niceMax, svg } from './dom.js';

/** One `quality` event, stamped with the seconds since the call started. */
export interface QualityPoint extends CallQuality {
  t: number;
}

const WIDTH = 640;
const LABEL_W = 92;
const VALUE_W = 80;
const PANEL_H = 48;
const GAP = 10;
const TOP = 8;
const AXIS_H = 22;

interface Series {
  key: 'rttMs' | 'packetLossPct' | 'mos';
  label: string;
  format: (v: number) => string;
  /** The panel's top value: fixed for MOS, rounded up from the data for the others. */
  max: (values: number[]) => number;
}

const SERIES: Series[] = [
  { key: 'rttMs', label: 'RTT', format: (v) => `${Math.round(v)} ms`, max: (v) => niceMax(Math.max(50, ...v)) },
  { key: 'packetLossPct', label: 'Loss', format: (v) => `${v.toFixed(1)} %`, max: (v) => niceMax(Math.max(2, ...v)) },
  { key: 'mos', label: 'MOS', format: (v) => v.toFixed(2), max: () => 4.5 },
];

/**
 * Call quality over the call (inline SVG, no chart library): one panel each for the round-trip
 * time, the packet loss (the worse direction) and the MOS estimate, on a shared time axis, from
 * the session's `quality` events. A gap in a line is a stretch with nothing measured.
 */
export function renderQualityChart(points: readonly QualityPoint[]): SVGSVGElement {
  const plotW = WIDTH - LABEL_W - VALUE_W;
  const height = TOP + SERIES.length * (PANEL_H + GAP) + AXIS_H;
  const span = Math.max(10, ...points.map((p) => p.t));
  const x = (t: number) => LABEL_W + (t / span) * plotW;
  const last = points.at(-1);
  const root = svg('svg', {
    viewBox: `0 0 ${WIDTH} ${height}`,
    role: 'img',
    'aria-label': last
      ? `Call quality over ${Math.round(span)} s: now ${last.level}${last.mos === null ? '' : `, MOS ${last.mos.toFixed(2)}`}`
      : 'Call quality: nothing measured yet',
    'data-testid': 'quality-svg',
    'data-points': points.length,
  });
  SERIES.forEach((series, i) => {
    const y0 = TOP + i * (PANEL_H + GAP);
    const values = points.map((p) => p[series.key]).filter((v): v is number => v !== null);
    const max = series.max(values);
    const y = (v: number) => y0 + PANEL_H - (Math.min(v, max) / max) * PANEL_H;
    // Lines break where a sample has no value.
    const runs: string[] = [];
    let run: string[] = [];
    for (const p of points) {
      const v = p[series.key];
      if (v === null) {
        if (run.length) runs.push(run.join(' '));
        run = [];
      } else run.push(`${x(p.t).toFixed(1)},${y(v).toFixed(1)}`);
    }
    if (run.length) runs.push(run.join(' '));
    const now = [...points].reverse().find((p) => p[series.key] !== null)?.[series.key] ?? null;
    root.appendChild(
      svg(
        'g',
        { 'data-testid': `quality-${series.key}`, 'data-last': now ?? '', 'data-max': max },
        svg('text', { x: 0, y: y0 + PANEL_H / 2 + 4 }, series.label),
        svg('rect', { class: 'panel', x: LABEL_W, y: y0, width: plotW, height: PANEL_H }),
        svg('text', { x: LABEL_W - 6, y: y0 + 10, 'text-anchor': 'end', class: 'tick' }, series.format(max)),
        ...runs.map((pts) => svg('polyline', { class: `line line-${series.key}`, points: pts })),
        svg('text', { x: LABEL_W + plotW + 6, y: y0 + PANEL_H / 2 + 4 }, now === null ? '—' : series.format(now)),
      ),
    );
  });
  const axisY = TOP + SERIES.length * (PANEL_H + GAP);
  for (let k = 0; k <= 4; k++) {
    const t = (span / 4) * k;
    root.appendChild(svg('text', { x: x(t), y: axisY + 12, 'text-anchor': 'middle' }, `${Math.round(t)} s`));
  }
  return root;
}
