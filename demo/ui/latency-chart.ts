import type { Turn } from 'kb-voice';
import { formatMs, niceMax, svg } from './dom.js';

const ROW = 26;
const LABEL_W = 92;
const VALUE_W = 80;
const WIDTH = 640;
const TOP = 8;
const AXIS_H = 26;

/**
 * Horizontal bar chart (inline SVG, no chart library) of each turn's first-response latency. The
 * part the turn spent waiting for the agent build is drawn separately so a missed warmup stands out.
 * A turn whose answer audio never played has no bar (`data-no-audio`), never a 0 ms one.
 */
export function renderLatencyChart(turns: readonly Turn[]): SVGSVGElement {
  const plotW = WIDTH - LABEL_W - VALUE_W;
  const height = TOP + Math.max(turns.length, 1) * ROW + AXIS_H;
  const max = niceMax(Math.max(1, ...turns.map((t) => t.firstResponseMs ?? 0)));
  const x = (ms: number) => LABEL_W + (Math.max(0, ms) / max) * plotW;

  const root = svg('svg', {
    viewBox: `0 0 ${WIDTH} ${height}`,
    role: 'img',
    'aria-label': `First-response latency of ${turns.length} turn(s)`,
    'data-testid': 'latency-svg',
  });
  if (turns.length === 0) {
    root.appendChild(svg('text', { x: LABEL_W, y: TOP + 16 }, 'No turns in this call.'));
  }

  turns.forEach((turn, i) => {
    const y = TOP + i * ROW;
    if (turn.firstResponseMs === null) {
      // No answer audio played (cut or barged in before it): no latency to draw, and no 0 either.
      root.appendChild(
        svg(
          'g',
          { 'data-testid': 'latency-bar', 'data-no-audio': true },
          svg('title', {}, `Turn ${i + 1}: no answer audio played`),
          svg('text', { x: 0, y: y + 16 }, `Turn ${i + 1} · ${turn.input}`),
          svg('text', { x: x(0) + 6, y: y + 16, class: 'no-audio' }, 'no answer audio'),
        ),
      );
      return;
    }
    const firstResponseMs = turn.firstResponseMs;
    // an unknown build time (null: the OpenAI dialect's events did not carry it) draws no build part
    const build = Math.min(turn.agentBuildMs ?? 0, firstResponseMs);
    root.appendChild(
      svg(
        'g',
        { 'data-testid': 'latency-bar', 'data-ms': firstResponseMs },
        svg('title', {}, `Turn ${i + 1}: ${formatMs(firstResponseMs)}${build > 0 ? `, of which agent build ${formatMs(build)}` : ''}`),
        svg('text', { x: 0, y: y + 16 }, `Turn ${i + 1} · ${turn.input}`),
        build > 0 ? svg('rect', { class: 'bar-build', x: x(0), y: y + 4, width: x(build) - x(0), height: ROW - 8, rx: 2 }) : null,
        svg('rect', { class: 'bar-resp', x: x(build), y: y + 4, width: Math.max(1, x(firstResponseMs) - x(build)), height: ROW - 8, rx: 2 }),
        svg('text', { x: x(firstResponseMs) + 6, y: y + 16 }, formatMs(firstResponseMs)),
      ),
    );
  });

  // Axis with five ticks.
  const axisY = TOP + Math.max(turns.length, 1) * ROW + 4;
  root.appendChild(svg('line', { x1: x(0), x2: x(max), y1: axisY, y2: axisY, stroke: '#c4cad2' }));
  for (let k = 0; k <= 4; k++) {
    const ms = (max / 4) * k;
    root.appendChild(svg('line', { x1: x(ms), x2: x(ms), y1: axisY, y2: axisY + 4, stroke: '#c4cad2' }));
    root.appendChild(svg('text', { x: x(ms), y: axisY + 17, 'text-anchor': 'middle' }, formatMs(ms)));
  }
  return root;
}
