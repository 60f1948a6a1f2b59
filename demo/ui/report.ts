import type { SessionReport } from 'kb-voice';
import { el, formatMs } from './dom.js';

type Row = [label: string, value: string];

/** A two-column table of a usage or cost record, or a sentence saying there is none yet. */
function recordTable(testId: string, rows: Row[] | null, missing: string): HTMLElement {
  if (!rows) return el('p', { class: 'empty', 'data-testid': `${testId}-missing` }, missing);
  return el(
    'table',
    { 'data-testid': testId },
    el('tbody', {}, ...rows.map(([label, value]) => el('tr', {}, el('th', { scope: 'row' }, label), el('td', {}, value)))),
  );
}

const int = (n: number | null | undefined) => (n ?? 0).toLocaleString('en-US');

export function renderUsage(usage: SessionReport['usage']): HTMLElement {
  return recordTable(
    'report-usage',
    usage && [
      ['Turns', int(usage.turn_count)],
      ['Duration', formatMs(usage.duration_ms)],
      ['Input tokens', int(usage.input_tokens)],
      ['  text / audio / cached', `${int(usage.input_text_tokens)} / ${int(usage.input_audio_tokens)} / ${int(usage.cached_tokens)}`],
      ['Output tokens', int(usage.output_tokens)],
      ['  text / audio', `${int(usage.output_text_tokens)} / ${int(usage.output_audio_tokens)}`],
      ['Total tokens', int(usage.total_tokens)],
      ['Language', usage.language ?? '—'],
      ['User', usage.user_identifier ?? '—'],
    ],
    'No usage record for this session (yet).',
  );
}

export function renderCost(cost: SessionReport['cost']): HTMLElement {
  return recordTable(
    'report-cost',
    cost && [
      ['Total cost', `$${cost.total_cost.toFixed(6)}`],
      ['Provider', cost.provider ?? '—'],
      ['Turns', int(cost.turn_count)],
      ['Total tokens', int(cost.total_tokens)],
      ['Input text / audio', `${int(cost.input_text_tokens)} / ${int(cost.input_audio_tokens)}`],
      ['Cached', int(cost.cached_tokens)],
      ['Output text / audio', `${int(cost.output_text_tokens)} / ${int(cost.output_audio_tokens)}`],
    ],
    'No cost record for this session (yet).',
  );
}

/** Answers cut by the caller or the app, and the sounds that only paused one (`report().interruptions`). */
export function renderInterruptions(counts: SessionReport['interruptions']): HTMLElement {
  return recordTable('report-interruptions', [
    ['Cut by the caller', int(counts.byCaller)],
    ['Cut by the app', int(counts.byApp)],
    ['False interruptions', int(counts.false)],
  ], '');
}

/**
 * Each recorded segment, playable in place and downloadable. The URLs are presigned storage links
 * (like S3 in production), so the browser fetches them without any key.
 */
export function renderSegments(segments: SessionReport['audio']): HTMLElement[] {
  if (segments.length === 0) return [el('li', { class: 'empty' }, 'No recorded audio for this session.')];
  return segments.map((segment) =>
    el(
      'li',
      { 'data-testid': 'audio-item', 'data-segment-index': segment.segment_index },
      el('span', {}, `Segment ${segment.segment_index}`),
      el('audio', {
        controls: true,
        preload: 'none',
        src: segment.url,
        'data-testid': 'audio-segment',
        'data-duration-ms': segment.duration_ms ?? undefined,
      }),
      el('span', { 'data-testid': 'audio-duration' }, segment.duration_ms != null ? formatMs(segment.duration_ms) : 'length not given'),
      // A new tab: browsers ignore `download` across origins and would otherwise navigate away from the call's report.
      el('a', { href: segment.url, download: `segment-${segment.segment_index}.wav`, target: '_blank', rel: 'noopener', 'data-testid': 'audio-download' }, 'Download'),
      el('small', { class: 'muted' }, segment.expires_at === undefined ? 'expiry not given' : `link expires ${new Date(segment.expires_at).toLocaleTimeString()}`),
    ),
  );
}
