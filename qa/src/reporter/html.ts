import { cutMark } from '../cut.js';
import type { CallTurn, QualityReport, VoiceCallEvidence } from '../types.js';
import { latencies, percentiles, phasePercentiles, type CollectedTest, type Percentiles, type Summary } from './summary.js';
import { phaseLine, WATERFALL_CSS, waterfallBar } from './waterfall.js';

/** The run as the page's header names it: when, and on what. */
export interface RunFacts {
  /** ISO 8601 start of the run. */
  startedAt: string;
  /** e.g. `Node v20.20.2 · linux x64 · Playwright 1.65.1 · CI`. */
  environment: string;
}

/** index.html: one self-contained page (inline CSS, no script) over the run's voice calls. */
export function renderHtml(summary: Summary, tests: readonly CollectedTest[], run?: RunFacts): string {
  const asExpected = tests.filter((t) => t.expected).length;
  const all = latencies(tests.flatMap((t) => t.calls.map((c) => c.evidence)));
  const scale = Math.max(1, ...all.firstResponseMs, ...all.perceivedLatencyMs);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Voice QA report — ${summary.overall.calls} calls</title>
<style>${CSS}</style></head>
<body>
<header class="top">
  <div><h1>Voice QA</h1><p class="sub">${tests.length} tests · ${summary.overall.calls} calls · ${summary.overall.turns} turns</p>
  ${run ? `<p class="sub">${esc(new Date(run.startedAt).toUTCString())} · ${esc(run.environment)}</p>` : ''}</div>
  <div class="verdict ${asExpected === tests.length ? 'ok' : 'bad'}">${asExpected}/${tests.length} as expected</div>
</header>
<section class="cards">
  ${metric('First response', summary.overall.firstResponseMs, 'from the end of the question to the first audio of the answer, at the service')}
  ${metric('Perceived latency', summary.overall.perceivedLatencyMs, 'from the end of the caller’s speech to the first audible answer, in the browser')}
</section>
${summary.overall.interruptions ? `<p class="sub cuts">Answers cut: ${summary.overall.interruptions.byCaller} by the caller · ${summary.overall.interruptions.byApp} by the app · ${summary.overall.interruptions.false} false interruptions (paused, then resumed)</p>` : ''}
${summary.overall.phasesMs ? `<section class="dist">${phaseLine(summary.overall.phasesMs)}</section>` : ''}
<section class="dist">${histogram(all.firstResponseMs, scale)}</section>
<main>
${tests.map((t) => testCard(t, scale)).join('\n')}
${tests.length === 0 ? '<p class="empty">No voice calls in this run.</p>' : ''}
</main>
<footer>kb-voice-qa · summary.json beside this page holds the same figures</footer>
</body></html>
`;
}

export function esc(text: unknown): string {
  return String(text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const fmt = (v: number | null | undefined) => (typeof v === 'number' ? `${Math.round(v)}<small> ms</small>` : '<span class="na">–</span>');

function metric(title: string, p: Percentiles, hint: string): string {
  return `<div class="card"><h2>${esc(title)}</h2><p class="hint">${esc(hint)}</p>
  <div class="pcts"><div><span>p50</span><b>${fmt(p.p50)}</b></div><div><span>p95</span><b>${fmt(p.p95)}</b></div><div><span>p99</span><b>${fmt(p.p99)}</b></div></div></div>`;
}

/** A strip of bars: how many turns' first responses fell in each 10 % of the slowest. */
function histogram(values: readonly number[], scale: number): string {
  if (values.length === 0) return '';
  const bins = new Array<number>(20).fill(0);
  for (const v of values) bins[Math.min(19, Math.floor((v / scale) * 20))]! += 1;
  const top = Math.max(...bins);
  const bars = bins
    .map((n, i) => `<div class="bin" title="${Math.round((i * scale) / 20)}–${Math.round(((i + 1) * scale) / 20)} ms: ${n} turns"><i style="height:${(n / top) * 100}%"></i></div>`)
    .join('');
  return `<h2>First responses of all turns</h2><div class="bins">${bars}</div><div class="axis"><span>0 ms</span><span>${Math.round(scale)} ms</span></div>`;
}

function qualityChip(q: QualityReport | null): string {
  if (!q) return '<span class="chip muted" title="quality not measured by this kb-voice">quality –</span>';
  const mos = typeof q.mos.mean === 'number' ? q.mos.mean : null;
  const cls = mos === null ? 'muted' : mos >= 4 ? 'ok' : mos >= 3.6 ? 'fine' : mos >= 3.1 ? 'warn' : 'bad';
  // Validated at the edge (evidence-schema.ts) and escaped all the same: the page never trusts a value into markup.
  return `<span class="chip ${cls}">MOS ${mos === null ? '–' : esc(mos.toFixed(2))}</span>` +
    `<span class="chip muted">RTT p95 ${esc(q.rttMs.p95 ?? '–')} ms</span><span class="chip muted">loss max ${esc(q.packetLossPct.max ?? '–')} %</span>` +
    (q.reconnects ? `<span class="chip warn">${esc(q.reconnects)} reconnects</span>` : '');
}

/** The call's network profile, start time and target, as chips. */
function callFacts(evidence: CollectedTest['calls'][number]['evidence']): string {
  const chips: string[] = [];
  if (evidence.network !== undefined) chips.push(`<span class="chip ${evidence.network ? 'warn' : 'muted'}" title="network profile">network ${esc(evidence.network ?? 'unshaped')}</span>`);
  if (evidence.startedAt) chips.push(`<span class="chip muted" title="call started">${esc(evidence.startedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</span>`);
  if (evidence.target) chips.push(`<span class="chip muted" title="relay">${esc(evidence.target.emulator ? 'emulator' : 'service')} · ${esc(evidence.target.relayUrl)}</span>`);
  return chips.join('');
}

/** A player labelled with what it holds (question or answer of which turn) and its length; the length loads with the page. */
function audioFigure(a: { name: string; href: string }, evidence: CollectedTest['calls'][number]['evidence']): string {
  const segment = evidence.segments?.find((s) => s.name === a.name);
  const label = segment ? segment.label : a.name;
  const length = typeof segment?.durationMs === 'number' ? ` · ${(segment.durationMs / 1000).toFixed(1)} s` : '';
  return `<figure><figcaption>${esc(label)}${esc(length)}</figcaption><audio controls preload="metadata" src="${esc(a.href)}" title="${esc(a.name)}"></audio></figure>`;
}

function bar(value: number | null | undefined, scale: number, cls: string, label: string): string {
  if (typeof value !== 'number') return '';
  return `<div class="lat ${cls}" title="${esc(label)} ${Math.round(value)} ms"><i style="width:${Math.max(1, (value / scale) * 100)}%"></i><span>${esc(label)} ${Math.round(value)} ms</span></div>`;
}

/** The answer's sources (Turn.sources; titled ones only), every value escaped: they come from the service. */
function sourcesLine(turn: CallTurn): string {
  const cited = (turn.sources ?? []).filter((s) => s.title);
  if (cited.length === 0) return '';
  const item = (s: (typeof cited)[number]) => `<span title="${esc(s.url ?? s.fileId ?? '')}">${esc(s.title)}${typeof s.page === 'number' ? ` p.${esc(s.page)}` : ''}</span>`;
  return `<div class="src"><span class="who">sources</span>${cited.map(item).join(' · ')}</div>`;
}

function turnRow(turn: CallTurn, scale: number, evidence: VoiceCallEvidence): string {
  const heard = evidence.heard?.find((h) => h.messageId === turn.messageId && h.turnId === turn.id);
  const mark = cutMark(turn, heard?.ms);
  // A cut answer shows what the caller heard, the rest struck through.
  const spoken = turn.interrupted && heard && turn.answer.startsWith(heard.text)
    ? `${esc(heard.text)}<s class="unheard" title="not heard: cut">${esc(turn.answer.slice(heard.text.length))}</s>`
    : esc(turn.answer);
  return `<li class="turn${turn.interrupted ? ' cut' : ''}">
    <div class="q"><span class="who">caller · ${esc(turn.input)}${turn.scripted ? ' · scripted' : ''}</span>${esc(turn.question)}</div>
    <div class="a"><span class="who">robot${mark ? ` · <span class="mark">${esc(mark)}</span>` : ''}</span>${spoken}</div>
    ${sourcesLine(turn)}<div class="bars">${bar(turn.firstResponseMs, scale, 'first', 'first response')}${bar(turn.perceivedLatencyMs, scale, 'perceived', 'perceived')}${waterfallBar(turn, scale)}</div>
  </li>`;
}

function testCard(test: CollectedTest, scale: number): string {
  const mine = latencies(test.calls.map((c) => c.evidence));
  const first = percentiles(mine.firstResponseMs);
  const perceived = percentiles(mine.perceivedLatencyMs);
  const calls = test.calls
    .map(({ evidence, audio }) => `<div class="call">
      <div class="callhead"><b>Call ${esc(evidence.call)}</b>${evidence.report ? `<code>${esc(evidence.report.sessionId)}</code>` : ''}${qualityChip(evidence.quality)}${callFacts(evidence)}</div>
      <ol class="turns">${evidence.turns.map((t) => turnRow(t, scale, evidence)).join('')}</ol>
      ${evidence.turns.length === 0 ? '<p class="empty">No finished turn.</p>' : ''}
      ${audio.length ? `<div class="audio">${audio.map((a) => audioFigure(a, evidence)).join('')}</div>` : ''}
      ${evidence.error ? `<p class="note">${esc(evidence.error)}</p>` : ''}
    </div>`)
    .join('');
  const label = test.expected && test.status !== 'passed' ? `${test.status} (expected)` : test.status;
  return `<article class="test ${esc(test.status)}${test.expected ? ' expected' : ''}">
  <header><span class="status">${esc(label)}</span><h3>${esc(test.test)}</h3></header>
  <div class="row">
    <div class="mini"><span>first response</span> p50 ${fmt(first.p50)} · p95 ${fmt(first.p95)} · p99 ${fmt(first.p99)}</div>
    <div class="mini"><span>perceived</span> p50 ${fmt(perceived.p50)} · p95 ${fmt(perceived.p95)} · p99 ${fmt(perceived.p99)}</div>
    ${phaseLine(phasePercentiles(test.calls.map((c) => c.evidence)))}
  </div>
  ${test.errors.map((e) => `<pre class="error">${esc(e)}</pre>`).join('')}
  ${(test.problems ?? []).map((p) => `<p class="note">${esc(p)}</p>`).join('')}
  ${calls}
</article>`;
}

export const CSS = WATERFALL_CSS + `
.src{font-size:.85em;color:var(--mute)}.turn.cut .mark{color:var(--warn);font-weight:600}.unheard{color:var(--mute)}.cuts{padding:0 40px}
:root{--bg:#0f1420;--panel:#171e2e;--line:#26304a;--text:#e7ecf5;--mute:#8d99b3;--ok:#2fbf71;--bad:#ef5d6a;--warn:#f0b429;--accent:#5b8cff;--perc:#b07cff}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:var(--bg);color:var(--text)}
.top{display:flex;justify-content:space-between;align-items:center;padding:28px 40px;background:linear-gradient(120deg,#1b2540,#10182a);border-bottom:1px solid var(--line)}
h1{margin:0;font-size:28px;letter-spacing:.5px}.sub{margin:4px 0 0;color:var(--mute)}
.verdict{font-size:22px;font-weight:700;padding:10px 18px;border-radius:12px}.verdict.ok{background:rgba(47,191,113,.15);color:var(--ok)}.verdict.bad{background:rgba(239,93,106,.15);color:var(--bad)}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:20px;padding:24px 40px 0}
.card{background:var(--panel);border:1px solid var(--line);border-radius:14px;padding:18px 22px}
.card h2{margin:0;font-size:16px}.hint{margin:2px 0 12px;color:var(--mute);font-size:13px}
.pcts{display:flex;gap:28px}.pcts span{display:block;color:var(--mute);font-size:12px;text-transform:uppercase;letter-spacing:1px}.pcts b{font-size:30px;font-weight:650}
small{font-size:.55em;color:var(--mute);font-weight:400}.na{color:var(--mute)}
.dist{margin:20px 40px 0;background:var(--panel);border:1px solid var(--line);border-radius:14px;padding:16px 22px}.dist h2{margin:0 0 10px;font-size:14px;color:var(--mute);font-weight:500}
.bins{display:flex;align-items:flex-end;gap:3px;height:70px}.bin{flex:1;height:100%;display:flex;align-items:flex-end;background:rgba(255,255,255,.02);border-radius:3px}.bin i{display:block;width:100%;background:linear-gradient(var(--accent),#3a5fc4);border-radius:3px}
.axis{display:flex;justify-content:space-between;color:var(--mute);font-size:12px;margin-top:4px}
main{padding:24px 40px;display:grid;gap:18px}
.test{background:var(--panel);border:1px solid var(--line);border-left:5px solid var(--mute);border-radius:14px;padding:16px 22px}
.test.passed{border-left-color:var(--ok)}.test.failed,.test.timedOut,.test.interrupted{border-left-color:var(--bad)}.test.failed.expected{border-left-color:var(--warn)}
.test header{display:flex;align-items:center;gap:12px}.test h3{margin:0;font-size:16px;font-weight:600}
.status{font-size:12px;font-weight:700;text-transform:uppercase;letter-spacing:1px;padding:3px 9px;border-radius:999px;background:rgba(255,255,255,.06)}
.passed .status{color:var(--ok)}.failed .status,.timedOut .status{color:var(--bad)}.failed.expected .status{color:var(--warn)}
.row{display:flex;flex-wrap:wrap;gap:24px;margin:8px 0;color:var(--text)}.mini span{color:var(--mute);margin-right:6px}
.error{background:rgba(239,93,106,.08);border:1px solid rgba(239,93,106,.35);color:#ffc9ce;padding:12px;border-radius:10px;white-space:pre-wrap;font-size:13px;max-height:320px;overflow:auto}
.call{border-top:1px solid var(--line);margin-top:12px;padding-top:12px}.callhead{display:flex;align-items:center;gap:10px;flex-wrap:wrap}.callhead code{color:var(--mute);font-size:12px}
.chip{font-size:12px;padding:2px 9px;border-radius:999px;background:rgba(255,255,255,.06)}.chip.ok{color:var(--ok)}.chip.fine{color:#8fd694}.chip.warn{color:var(--warn)}.chip.bad{color:var(--bad)}.chip.muted{color:var(--mute)}
.turns{list-style:none;margin:10px 0 0;padding:0;display:grid;gap:12px}
.q,.a{max-width:78%;padding:8px 12px;border-radius:12px}.q{background:#223157}.a{background:#1f2a3f;margin-left:auto;border:1px solid var(--line)}
.who{display:block;font-size:11px;color:var(--mute);text-transform:uppercase;letter-spacing:1px}
.bars{display:grid;gap:3px;margin-top:6px}.lat{position:relative;height:18px;background:rgba(255,255,255,.03);border-radius:4px;overflow:hidden}
.lat i{position:absolute;inset:0 auto 0 0;border-radius:4px}.lat.first i{background:rgba(91,140,255,.55)}.lat.perceived i{background:rgba(176,124,255,.55)}
.lat span{position:relative;padding-left:8px;font-size:12px;line-height:18px}
.audio{display:flex;flex-wrap:wrap;gap:14px;margin-top:12px}figure{margin:0}figcaption{font-size:12px;color:var(--mute)}audio{height:34px}
.note{color:var(--warn);font-size:13px}.empty{color:var(--mute)}
footer{color:var(--mute);font-size:12px;padding:0 40px 30px}
`;
