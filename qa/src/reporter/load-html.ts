import { CSS, esc } from './html.js';
import { saturationCause, saturationSentence, type LoadReport, type MetricFigures, type TimelinePoint } from './load-model.js';

const ms = (v: number | null | undefined) => (typeof v === 'number' ? `${Math.round(v)}<small> ms</small>` : '<span class="na">–</span>');
const num = (v: number | null | undefined, digits = 0) => (typeof v === 'number' ? v.toFixed(digits) : '–');

/** A line chart (inline SVG) of `series` over the timeline; null values leave gaps. */
function chart(title: string, points: readonly TimelinePoint[], series: Array<{ label: string; cls: string; pick: (p: TimelinePoint) => number | null }>, unit: string): string {
  if (points.length === 0) return '';
  const W = 760;
  const H = 180;
  const pad = 34;
  const values = points.flatMap((p) => series.map((s) => s.pick(p))).filter((v): v is number => v !== null);
  const top = Math.max(1, ...values);
  const x = (i: number) => pad + (points.length === 1 ? (W - 2 * pad) / 2 : (i * (W - 2 * pad)) / (points.length - 1));
  const y = (v: number) => H - pad + 10 - (v / top) * (H - pad - 10);
  // Each measured point is a dot, joined by a line where there are two or more: a short run's
  // latencies often all land in one Artillery period, and a path of one point draws nothing.
  const lines = series
    .map((s) => {
      const measured = points
        .map((p, i) => [i, s.pick(p)] as const)
        .filter((e): e is readonly [number, number] => e[1] !== null);
      const path = measured.map(([i, v], k) => `${k === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
      const dots = measured.map(([i, v]) => `<circle class="${s.cls}" cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3.5"><title>${esc(s.label)} ${Math.round(v)}</title></circle>`).join('');
      return `${measured.length > 1 ? `<path class="${s.cls}" d="${path}"/>` : ''}${dots}`;
    })
    .join('');
  const over = (p: TimelinePoint) => (p.saturatedBy === 'generator' ? 'generator CPU over the limit' : 'machine CPU over the limit (other work)');
  const saturated = points.map((p, i) => (p.saturated ? `<rect class="sat" x="${(x(i) - 6).toFixed(1)}" y="0" width="12" height="${H - pad + 10}"><title>${over(p)}</title></rect>` : '')).join('');
  const t0 = points[0]!.at;
  const label = (p: TimelinePoint) => (p.at > 1e12 ? `+${Math.round((p.at - t0) / 1000)} s` : `#${p.at}`);
  return `<figure class="chart"><figcaption>${esc(title)} ${series.map((s) => `<span class="key ${s.cls}">${esc(s.label)}</span>`).join(' ')}</figcaption>
<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}">${saturated}
<line class="ax" x1="${pad}" y1="${H - pad + 10}" x2="${W - pad}" y2="${H - pad + 10}"/>
<text x="2" y="14">${Math.round(top)} ${esc(unit)}</text><text x="${pad}" y="${H - 4}">${esc(label(points[0]!))}</text><text x="${W - pad - 40}" y="${H - 4}">${esc(label(points[points.length - 1]!))}</text>
${lines}</svg></figure>`;
}

function card(title: string, f: MetricFigures | undefined, hint: string): string {
  return `<div class="card"><h2>${esc(title)}</h2><p class="hint">${esc(hint)}</p>
  <div class="pcts"><div><span>p50</span><b>${ms(f?.p50)}</b></div><div><span>p95</span><b>${ms(f?.p95)}</b></div><div><span>p99</span><b>${ms(f?.p99)}</b></div></div>
  <p class="hint">${f?.count ?? 0} samples</p></div>`;
}

/**
 * A recording's link: the URL comes from the service's report, so only an http(s) URL becomes a
 * link (a `javascript:` or `data:` one would run in the page of whoever opens the report); any
 * other is shown as text, saying why.
 */
export function recordingLink(a: { segment: number; url: string }): string {
  const label = `segment ${esc(a.segment)}`;
  let protocol = '';
  try {
    protocol = new URL(a.url).protocol;
  } catch {
    // Not a URL at all: shown as text below.
  }
  return protocol === 'https:' || protocol === 'http:'
    ? `<a href="${esc(a.url)}" rel="noreferrer noopener">${label}</a>`
    : `<span class="na" title="not an http(s) link: ${esc(a.url.slice(0, 200))}">${label} (link refused)</span>`;
}

function worstCall(c: LoadReport['worstCalls'][number]): string {
  return `<div class="call"><div class="callhead"><b>${esc(c.userIdentifier)}</b><span class="chip ${c.status === 'ok' ? 'ok' : 'bad'}">${esc(c.status)}</span>
  <span class="chip muted">${esc(c.caller)} · ${esc(c.scenario)}</span><span class="chip muted">connect ${num(c.connectMs)} ms</span>${c.mos !== null ? `<span class="chip muted">MOS ${num(c.mos, 2)}</span>` : ''}
  ${c.sessionId ? `<code>${esc(c.sessionId)}</code>` : ''}<code>${esc(c.startedAt)}</code></div>
  <ol class="turns">${c.turns.map((t) => `<li class="turn"><div class="q"><span class="who">caller · ${esc(t.input)}</span>${esc(t.question)}</div>
    <div class="a"><span class="who">robot${t.interrupted ? ' · cut' : ''} · first response ${num(t.firstResponseMs)} ms · perceived ${num(t.perceivedLatencyMs)} ms</span>${esc(t.answer)}</div></li>`).join('')}</ol>
  ${c.error ? `<pre class="error">${esc(c.error)}</pre>` : ''}
  ${c.audio.length ? `<p class="links">Recording: ${c.audio.map(recordingLink).join(' · ')} <small>(presigned links of the service; they expire)</small></p>` : ''}
</div>`;
}

/** index.html of a load run: verdict on the generator, percentiles, timeline, errors by code, worst calls. */
export function renderLoadHtml(report: LoadReport, source: string): string {
  const cause = saturationCause(report);
  const sentence = saturationSentence(report);
  const s = report.saturation;
  const c = report.counters;
  const failedVus = c['vusers.failed'] ?? 0;
  const advice = cause === 'generator'
    ? 'Run fewer calls per machine, or spread them (Artillery on Fargate or Lambda).'
    : 'Run the load test on a machine of its own, or when it is quiet.';
  const warning = sentence
    ? `<p class="banner bad">${esc(sentence[0]!.toUpperCase() + sentence.slice(1))}; ${s?.saturatedPeriods} of ${s?.periods} periods over the limit. ${esc(advice)}</p>`
    : s
      ? `<p class="banner ok">Generator CPU peak ${num(s.generatorPeakPct)} % of the machine (machine ${num(s.machinePeakPct)} %), under ${s.limitPct} %: the percentiles are the service's.</p>`
      : '<p class="banner warn">The run has no generator CPU samples (voice.generator_cpu_pct): whether the generator was the limit is unknown.</p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Voice load report — ${c['voice.calls'] ?? 0} calls</title>
<style>${CSS}${LOAD_CSS}</style></head>
<body>
<header class="top">
  <div><h1>Voice load test</h1><p class="sub">${esc(source)}${report.startedAt ? ` · ${esc(report.startedAt)}` : ''} · ${c['voice.calls'] ?? 0} calls · ${c['voice.turns'] ?? 0} turns · peak ${num(report.peakActiveCalls)} at once</p></div>
  <div class="verdict ${failedVus === 0 && (c['voice.turns_failed'] ?? 0) === 0 ? 'ok' : 'bad'}">${c['vusers.completed'] ?? 0} completed · ${failedVus} failed</div>
</header>
${warning}
<section class="cards">
  ${card('First response', report.metrics['voice.first_response_ms'], 'end of the question to the first answer audio, at the service')}
  ${card('Perceived latency', report.metrics['voice.perceived_latency_ms'], 'end of the caller’s speech to the first answer audio, at the caller')}
  ${card('Time to connected', report.metrics['voice.connect_ms'], 'start() to a connected call')}
</section>
<section class="dist">
  <h2>Over time</h2>
  ${chart('Latency (ms)', report.timeline, [
    { label: 'first response p50', cls: 's1', pick: (p) => p.firstResponseMs.p50 },
    { label: 'first response p95', cls: 's2', pick: (p) => p.firstResponseMs.p95 },
    { label: 'perceived p95', cls: 's3', pick: (p) => p.perceivedLatencyMs.p95 },
  ], 'ms')}
  ${chart('Concurrency and CPU', report.timeline, [
    { label: 'calls at once', cls: 's1', pick: (p) => p.activeCalls },
    { label: 'generator CPU %', cls: 's4', pick: (p) => p.generatorCpuPct },
    { label: 'machine CPU %', cls: 's3', pick: (p) => p.machineCpuPct },
  ], '')}
</section>
<section class="cards">
  <div class="card"><h2>Turns</h2><p class="hint">finished, failed, answers cut</p><div class="pcts"><div><span>turns</span><b>${c['voice.turns'] ?? 0}</b></div><div><span>failed</span><b>${c['voice.turns_failed'] ?? 0}</b></div><div><span>cut</span><b>${c['voice.answers_cut'] ?? 0}</b></div></div>
  <p class="hint">MOS per call: p50 ${num(report.metrics['voice.mos']?.p50, 2)} (${report.metrics['voice.mos']?.count ?? 0} calls measured)</p></div>
  <div class="card"><h2>Errors by code</h2>${report.errors.length ? `<table>${report.errors.map((e) => `<tr><td><code>${esc(e.code)}</code></td><td>${e.count}</td></tr>`).join('')}</table>` : '<p class="hint">none</p>'}</div>
  <div class="card"><h2>Phases</h2>${Object.entries(report.metrics).filter(([n]) => n.startsWith('voice.phase.')).map(([n, f]) => `<p class="mini"><span>${esc(n.slice('voice.phase.'.length))}</span> p50 ${ms(f.p50)} · p95 ${ms(f.p95)}</p>`).join('') || '<p class="hint">no Turn.timing phases in this run</p>'}</div>
</section>
<main>
<h2>Worst calls</h2>
${report.worstCalls.length ? report.worstCalls.map(worstCall).join('\n') : '<p class="empty">No call records (run with KB_VOICE_QA_CALLS=calls.jsonl and pass --calls calls.jsonl).</p>'}
</main>
<footer>kb-voice-qa · load-summary.json beside this page holds the same figures</footer>
</body></html>
`;
}

const LOAD_CSS = `
.banner{margin:20px 40px 0;padding:12px 18px;border-radius:12px;font-weight:600}.banner.bad{background:rgba(239,93,106,.15);color:var(--bad)}.banner.ok{background:rgba(47,191,113,.12);color:var(--ok)}.banner.warn{background:rgba(240,180,41,.12);color:var(--warn)}
.chart{margin:8px 0 18px}.chart figcaption{color:var(--mute);font-size:13px;margin-bottom:4px}.chart svg{width:100%;height:auto;background:rgba(255,255,255,.02);border-radius:8px}
.chart path{fill:none;stroke-width:2}.chart circle{stroke:none}.chart circle.s1{fill:var(--accent)}.chart circle.s2{fill:var(--warn)}.chart circle.s3{fill:var(--perc)}.chart circle.s4{fill:var(--bad)}.chart .s1{stroke:var(--accent);color:var(--accent)}.chart .s2{stroke:var(--warn);color:var(--warn)}.chart .s3{stroke:var(--perc);color:var(--perc)}.chart .s4{stroke:var(--bad);color:var(--bad)}
.chart text{fill:var(--mute);font-size:11px}.chart .ax{stroke:var(--line)}.chart .sat{fill:rgba(239,93,106,.12)}.key{font-size:12px;margin-left:8px}
table{border-collapse:collapse}td{padding:2px 12px 2px 0}.links a{color:var(--accent)}
`;
