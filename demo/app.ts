import { createApiClient, VoiceSession, type CallQuality } from 'kb-voice';
import type { SessionReport, Turn } from 'kb-voice';
import type { DemoConfig } from './config.js';
import { byId, el } from './ui/dom.js';
import { describeError } from './ui/errors.js';
import { FirstBuildNote } from './ui/first-build.js';
import { renderLatencyChart } from './ui/latency-chart.js';
import { renderQualityChart, type QualityPoint } from './ui/quality-chart.js';
import { AnswerCuts } from './ui/cuts.js';
import { renderCost, renderInterruptions, renderSegments, renderUsage } from './ui/report.js';
import { wireScript } from './ui/script.js';
import { Timeline } from './ui/timeline.js';
import { renderTurn, type Rating } from './ui/turns.js';
import { renderSources } from './ui/sources.js';
import { withSources } from 'kb-voice/sources';
import { verifyDeleted } from './verify-delete.js';

type Api = ReturnType<typeof createApiClient>;
type CallState = VoiceSession['state'];
type Tone = 'ok' | 'busy' | 'bad' | 'warn' | '';

/** The status words QA automation relies on (CONTRACT.md): `reconnecting` shows as `connecting`. */
const CALL_STATUS: Record<CallState['status'], { text: string; tone: Tone }> = {
  idle: { text: 'idle', tone: '' },
  connecting: { text: 'connecting', tone: 'busy' },
  reconnecting: { text: 'connecting', tone: 'warn' },
  connected: { text: 'connected', tone: 'ok' },
  // The call is still up while the assistant finishes its sentence (kb-voice's `ending` status).
  ending: { text: 'connected', tone: 'busy' },
  ended: { text: 'ended', tone: '' },
  failed: { text: 'failed', tone: 'bad' },
};

const QUALITY_LEVEL: Record<CallQuality['level'], Tone> = { excellent: 'ok', good: 'ok', fair: 'warn', poor: 'bad', unknown: '' };

const WARMUP_STATUS: Record<VoiceSession['warmup'], { text: string; tone: Tone }> = {
  idle: { text: 'pending', tone: '' },
  pending: { text: 'pending', tone: 'busy' },
  ok: { text: 'ok', tone: 'ok' },
  failed: { text: 'failed', tone: 'warn' },
};

/** Wires the QA page to a {@link VoiceSession}; one session object per call. */
export function startApp(config: DemoConfig): void {
  // No key: the page talks to its own origin, where the relay adds the key server-side.
  const api: Api = createApiClient({ baseUrl: config.apiBase });
  const ui = {
    start: byId<HTMLButtonElement>('call-start'),
    end: byId<HTMLButtonElement>('call-end'),
    mute: byId<HTMLButtonElement>('mute-toggle'),
    resume: byId<HTMLButtonElement>('playback-resume'),
    status: byId('call-status'),
    warmup: byId('warmup-status'),
    firstBuild: byId('first-build-note'),
    mic: byId('mic-status'),
    speaking: byId('speaking'),
    inLevel: byId('input-level'),
    outLevel: byId('output-level'),
    form: byId<HTMLFormElement>('text-form'),
    input: byId<HTMLInputElement>('text-input'),
    send: byId<HTMLButtonElement>('text-send'),
    live: byId('live-transcript'),
    error: byId('call-error'),
    audio: byId<HTMLAudioElement>('remote-audio'),
    sessionId: byId('session-id'),
    turns: byId<HTMLOListElement>('turns'),
    turnsEmpty: byId('turns-empty'),
    report: byId('report'),
    reportStatus: byId('report-status'),
    usage: byId('usage-box'),
    cost: byId('cost-box'),
    interruptions: byId('interruptions-box'),
    chart: byId('latency-chart'),
    quality: byId('quality-level'),
    qualityChart: byId('quality-chart'),
    segments: byId<HTMLOListElement>('audio-segments'),
    refresh: byId<HTMLButtonElement>('report-refresh'),
    del: byId<HTMLButtonElement>('session-delete'),
    delStatus: byId('delete-status'),
  };
  const timeline = new Timeline(byId<HTMLOListElement>('timeline'));
  const firstBuild = new FirstBuildNote(ui.firstBuild);
  let session: VoiceSession | null = null;
  let sessionId: string | null = null;
  const script = wireScript(
    { form: byId<HTMLFormElement>('script-form'), input: byId<HTMLInputElement>('script-input'), status: byId('script-status'), sessionId: () => sessionId },
    (text) => timeline.add('info', text),
  );
  // Highest levels of the current call, exposed for QA automation (data-peak).
  let inputPeak = 0;
  let outputPeak = 0;
  const speaking = { user: false, assistant: false };
  // The call's quality events, for the chart beside the latency chart.
  let qualityPoints: QualityPoint[] = [];
  let callStartedAt = 0;
  const renderQuality = (q: CallQuality) => {
    pill(ui.quality, { text: q.level === 'unknown' ? 'not measured' : `${q.level}${q.mos === null ? '' : ` · MOS ${q.mos.toFixed(1)}`}`, tone: QUALITY_LEVEL[q.level] });
    ui.quality.dataset.level = q.level;
  };

  const pill = (node: HTMLElement, v: { text: string; tone: Tone }) => {
    node.textContent = v.text;
    node.dataset.tone = v.tone;
  };
  const showError = (error: unknown) => {
    console.error(error);
    const text = describeError(error);
    // The same failure often arrives twice (the 'error' event and the 'failed' state): say it once.
    if (!ui.error.hidden && ui.error.textContent === text) return;
    ui.error.textContent = text;
    ui.error.hidden = false;
    timeline.add('error', text);
  };
  const setConnected = (live: boolean) => {
    ui.end.disabled = !live;
    ui.mute.disabled = !live;
    ui.input.disabled = !live;
    ui.send.disabled = !live;
  };
  const renderSpeaking = () => {
    const who = [speaking.user && 'you', speaking.assistant && 'assistant'].filter(Boolean);
    ui.speaking.textContent = who.length ? who.join(' + ') : '—';
  };
  const renderMute = (muted: boolean) => {
    ui.mute.textContent = muted ? 'Unmute' : 'Mute';
    ui.mute.setAttribute('aria-pressed', String(muted));
    pill(ui.mic, muted ? { text: 'muted', tone: 'warn' } : { text: 'live', tone: 'ok' });
  };
  const level = (node: HTMLElement, value: number | null) => {
    // null: the browser cannot measure it (e.g. Web Audio suspended), which is not silence.
    node.dataset.unavailable = String(value === null);
    // Firefox with no audio output device runs no Web Audio: the microphone's level cannot be read then.
    node.parentElement!.title = value === null ? 'cannot measure here (no Web Audio: is there an audio output device?)' : '';
    const v = Math.max(0, Math.min(1, value ?? 0));
    node.style.width = `${(v * 100).toFixed(1)}%`;
    node.dataset.value = v.toFixed(3);
  };

  const rate = async (turn: Turn, rating: Rating) => {
    if (!sessionId) throw new Error('No session to rate in.');
    await api.sessions.rate(config.aiId, { session_id: sessionId, message_id: turn.messageId, rating, source: 'playground' });
    timeline.add('info', `Rated message ${turn.messageId.slice(0, 8)}… ${rating}`);
  };

  const onState = (state: CallState, previous?: CallState) => {
    pill(ui.status, CALL_STATUS[state.status]);
    ui.status.dataset.detail = state.status;
    const extra = state.status === 'reconnecting' ? ` (attempt ${state.attempt})`
      : state.status === 'ended' ? ` (${state.reason})` : '';
    timeline.add('state', `${previous ? `${previous.status} → ` : ''}${state.status}${extra}`);
    if ('sessionId' in state && state.sessionId) {
      sessionId = state.sessionId;
      ui.sessionId.textContent = state.sessionId;
    }
    setConnected(state.status === 'connected' || state.status === 'reconnecting');
    if (state.status === 'failed') showError(state.error);
    if (state.status === 'ended' || state.status === 'failed') {
      ui.start.disabled = false;
      speaking.user = speaking.assistant = false;
      renderSpeaking();
      firstBuild.answer();
      level(ui.inLevel, 0);
      level(ui.outLevel, 0);
      if (state.status === 'ended' && sessionId) void loadReport(session, sessionId);
    }
  };

  const start = async () => {
    ui.start.disabled = true;
    ui.error.hidden = true;
    ui.turns.replaceChildren();
    ui.turnsEmpty.hidden = false;
    ui.report.hidden = true;
    ui.live.textContent = '';
    ui.delStatus.textContent = '';
    sessionId = null;
    inputPeak = 0;
    outputPeak = 0;
    qualityPoints = [];
    callStartedAt = performance.now();
    ui.qualityChart.replaceChildren(renderQualityChart(qualityPoints));
    ui.sessionId.textContent = '—';
    timeline.mark();
    timeline.add('info', `New call to robot ${config.aiId} in "${config.language}"`);
    const s = new VoiceSession({ aiId: config.aiId, api, language: config.language, audioElement: ui.audio, sources: withSources() });
    session = s;
    const cuts = new AnswerCuts();
    renderMute(false);
    pill(ui.warmup, WARMUP_STATUS[s.warmup]);
    firstBuild.reset(s.warmup);
    renderQuality(s.getSnapshot().quality);
    s.on('state', onState);
    s.on('warmup', (status) => {
      pill(ui.warmup, WARMUP_STATUS[status]);
      firstBuild.setWarmup(status);
      timeline.add('warmup', `warmup ${status}`);
    });
    s.on('userSpeaking', (on) => {
      speaking.user = on;
      if (!on) firstBuild.question();
      renderSpeaking();
      timeline.add('speech', on ? 'you started speaking' : 'you stopped speaking');
    });
    s.on('assistantSpeaking', (on) => {
      speaking.assistant = on;
      cuts.speaking(on);
      if (on) firstBuild.answer();
      renderSpeaking();
      timeline.add('speech', on ? 'assistant started speaking' : 'assistant stopped speaking');
    });
    // Sources arrive after their turn (read in the background): under that turn's row.
    s.on('sources', (turnId, sources) => {
      const rows = ui.turns.querySelectorAll(`[data-testid="turn"][data-turn-id="${turnId}"]`);
      rows[rows.length - 1]?.append(renderSources(sources));
    });
    s.on('transcript', (t) => {
      ui.live.textContent = `${t.role === 'user' ? 'You' : 'Assistant'}: ${t.text}${t.final ? '' : '…'}`;
    });
    s.on('turn', (turn) => {
      ui.turnsEmpty.hidden = true;
      ui.turns.appendChild(renderTurn(turn, ui.turns.children.length, rate, cuts.take(turn)));
      if (turn.scripted) script.used(turn.question);
      const paused = turn.falseInterruptions > 0 ? `, ${turn.falseInterruptions} false interruption(s)` : '';
      timeline.add('info', `turn ${ui.turns.children.length} finished (${turn.input}${turn.interrupted ? `, cut by ${turn.interruptedBy ?? 'unknown'}` : ''}${paused})`);
    });
    s.on('level', ({ input, output }) => {
      inputPeak = Math.max(inputPeak, input ?? 0);
      outputPeak = Math.max(outputPeak, output ?? 0);
      ui.inLevel.dataset.peak = inputPeak.toFixed(3);
      ui.outLevel.dataset.peak = outputPeak.toFixed(3);
      level(ui.inLevel, input);
      level(ui.outLevel, output);
    });
    s.on('quality', (q) => {
      renderQuality(q);
      qualityPoints.push({ ...q, t: (performance.now() - callStartedAt) / 1000 });
      ui.qualityChart.replaceChildren(renderQualityChart(qualityPoints));
    });
    s.on('playbackBlocked', () => {
      ui.resume.hidden = false;
      timeline.add('error', 'sound playback blocked by the browser');
    });
    s.on('error', showError);
    try {
      await s.start();
    } catch (error) {
      // The 'failed' state already reported it; this catches anything thrown before that.
      if (s.state.status !== 'failed') showError(error);
      ui.start.disabled = false;
    }
  };

  const loadReport = async (s: VoiceSession | null, id: string) => {
    if (!s) return;
    ui.report.hidden = false;
    ui.del.disabled = false;
    ui.refresh.disabled = false;
    ui.reportStatus.textContent = 'Loading the report…';
    let report: SessionReport | null = null;
    // Usage, cost and audio are written when the session closes upstream; give them a moment.
    for (let attempt = 0; attempt < 8; attempt++) {
      try {
        report = await s.report();
      } catch (error) {
        ui.reportStatus.textContent = `The report could not be loaded: ${describeError(error)}`;
        return;
      }
      if (report.usage && report.cost && (report.audio.length > 0 || report.turns.length === 0)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    if (!report || id !== sessionId) return;
    ui.usage.replaceChildren(renderUsage(report.usage));
    ui.cost.replaceChildren(renderCost(report.cost));
    ui.interruptions.replaceChildren(renderInterruptions(report.interruptions));
    ui.chart.replaceChildren(renderLatencyChart(report.turns));
    ui.segments.replaceChildren(...renderSegments(report.audio));
    ui.reportStatus.textContent = `Report of session ${report.sessionId}: ${report.turns.length} turn(s), ${report.audio.length} audio segment(s).`;
    ui.report.dataset.loaded = 'true';
    timeline.add('info', 'report loaded');
  };

  const deleteSession = async () => {
    if (!sessionId) return;
    const id = sessionId;
    ui.del.disabled = true;
    ui.delStatus.dataset.state = 'deleting';
    ui.delStatus.textContent = `Deleting session ${id}…`;
    try {
      const out = await api.sessions.delete(config.aiId, id);
      timeline.add('info', `delete requested: ${out ? out.status : 'ignored (204)'}`);
      const result = await verifyDeleted(api, config.aiId, id);
      ui.delStatus.dataset.state = result.gone ? 'gone' : 'still-present';
      ui.delStatus.textContent = result.text;
      if (result.gone) {
        ui.segments.replaceChildren(el('li', { class: 'empty' }, 'Deleted with the session.'));
        for (const b of ui.turns.querySelectorAll('button')) b.disabled = true;
        ui.refresh.disabled = true;
      } else {
        ui.del.disabled = false;
      }
    } catch (error) {
      ui.delStatus.dataset.state = 'error';
      ui.delStatus.textContent = `The session could not be deleted: ${describeError(error)}`;
      ui.del.disabled = false;
    }
  };

  ui.start.addEventListener('click', () => void start());
  ui.end.addEventListener('click', () => {
    ui.end.disabled = true;
    session?.end({ mode: 'graceful' }).catch(showError);
  });
  ui.mute.addEventListener('click', () => {
    if (!session) return;
    if (session.muted) session.unmute();
    else session.mute();
    renderMute(session.muted);
    timeline.add('info', session.muted ? 'microphone muted' : 'microphone unmuted');
  });
  ui.resume.addEventListener('click', () => {
    ui.resume.hidden = true;
    Promise.resolve(session?.resumePlayback()).catch(showError);
  });
  ui.form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = ui.input.value.trim();
    if (!text || !session) return;
    try {
      session.sendText(text);
      firstBuild.question();
      ui.input.value = '';
      timeline.add('info', `you typed: ${text}`);
    } catch (error) {
      showError(error);
    }
  });
  ui.refresh.addEventListener('click', () => sessionId && void loadReport(session, sessionId));
  ui.del.addEventListener('click', () => void deleteSession());
  window.addEventListener('unhandledrejection', (e) => showError(e.reason));
}
