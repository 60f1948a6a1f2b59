import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { TIMING_PHASES, type SessionState, type Turn, type VoiceSession } from '../client/index.js';
import type { VoiceMetrics } from './metrics.js';
import { ATTR, PROVIDER, SPAN } from './names.js';

/** What {@link traceSession} needs besides the session. */
export interface SessionTracing {
  tracer: Tracer;
  metrics: VoiceMetrics;
  /** The robot called (`gen_ai.agent.id`). */
  aiId?: string;
  /** The clock of the session's timestamps (`Turn.timing.speechEndAt`); default Date.now. */
  now?: () => number;
}

/** What a traced call offers its API calls: the span their `traceparent` should name (the innermost open one). */
export interface TracedCall {
  current(): Span | undefined;
  /** The call span, also once ended (its reports name it); undefined before the call began. */
  readonly last: Span | undefined;
  /** Stops listening; ends the spans still open (the call span with what it knows). */
  dispose(): void;
}

/**
 * Follows one call's events and records them as spans and metrics: `realtime_inference` for the
 * call (from `connecting` to `ended`/`failed`), `kb_voice.connect` and `kb_voice.reconnect` under
 * it, `invoke_agent` for each turn (from its first sign — speech or transcript — to `turn`) with
 * one `kb_voice.phase.<phase>` span per measured phase of its `timing`. Turns still open when the
 * call ends are closed with `end_reason` `session_closed`.
 */
export function traceSession(session: VoiceSession, t: SessionTracing): TracedCall {
  const now = t.now ?? Date.now;
  const base: Attributes = { [ATTR.provider]: PROVIDER, ...(t.aiId ? { [ATTR.agentId]: t.aiId } : {}) };
  let call: Span | undefined;
  let connecting: { span: Span; at: number; first: boolean } | undefined;
  let reconnects = 0;
  /** When the next turn began (speech heard, or its first transcript), and turns seen but not finished. */
  let pendingStart: number | undefined;
  const open = new Map<number, number>();
  const ids = () => (session.sessionId ? { [ATTR.realtimeSessionId]: session.sessionId, [ATTR.conversationId]: session.sessionId } : {});
  const under = () => (call ? trace.setSpan(context.active(), call) : context.active());

  const onState = (state: SessionState) => {
    const at = now();
    if (state.status === 'connecting' && !call) {
      call = t.tracer.startSpan(SPAN.call, { kind: SpanKind.CLIENT, startTime: at, attributes: { ...base, [ATTR.operation]: SPAN.call } });
      connecting = { span: t.tracer.startSpan(SPAN.connect, { startTime: at, attributes: base }, under()), at, first: true };
    } else if (state.status === 'reconnecting' && !connecting) {
      reconnects++;
      t.metrics.reconnect(base);
      connecting = { span: t.tracer.startSpan(SPAN.reconnect, { startTime: at, attributes: { ...base, [ATTR.reconnectCause]: state.cause } }, under()), at, first: false };
    } else if (state.status === 'connected' && connecting) {
      call?.setAttributes(ids());
      connecting.span.setAttributes(ids());
      connecting.span.end(at);
      if (connecting.first) t.metrics.timeToConnected(at - connecting.at, base);
      connecting = undefined;
    } else if (state.status === 'ended' || state.status === 'failed') {
      finish(state, at);
    }
  };

  let last: Span | undefined;
  const finish = (state: Extract<SessionState, { status: 'ended' | 'failed' }> | undefined, at: number) => {
    for (const [turnId, startedAt] of open) turnSpan(turnId, startedAt, at, 'session_closed', {}).end(at);
    open.clear();
    if (connecting) {
      if (state?.status === 'failed') connecting.span.setStatus({ code: SpanStatusCode.ERROR, message: state.error.message });
      connecting.span.end(at);
      connecting = undefined;
    }
    if (!call) return;
    call.setAttributes({ ...ids(), [ATTR.reconnects]: reconnects });
    if (state?.status === 'failed') {
      call.setAttribute(ATTR.errorType, state.error.code);
      call.setStatus({ code: SpanStatusCode.ERROR, message: state.error.message });
    } else if (state) {
      call.setAttribute(ATTR.callEndReason, state.reason);
    }
    call.end(at);
    last = call;
    call = undefined;
  };

  const turnSpan = (turnId: number, start: number, end: number, reason: string, extra: Attributes): Span =>
    t.tracer.startSpan(SPAN.turn, {
      startTime: Math.min(start, end),
      attributes: { ...base, ...ids(), [ATTR.operation]: SPAN.turn, [ATTR.turnId]: turnId, [ATTR.endReason]: reason, ...extra },
    }, under());

  const onSpeaking = (speaking: boolean) => {
    if (speaking) pendingStart ??= now();
  };
  const onTranscript = (u: { turnId: number }) => {
    if (open.has(u.turnId)) return;
    open.set(u.turnId, pendingStart ?? now());
    pendingStart = undefined;
  };
  const onTurn = (turn: Turn) => {
    const end = now();
    const start = open.get(turn.id) ?? pendingStart ?? end;
    open.delete(turn.id);
    if (!open.size) pendingStart = undefined;
    const span = turnSpan(turn.id, start, end, turn.interrupted ? 'interrupted' : 'completed', {
      [ATTR.turnInput]: turn.input,
      ...(turn.firstResponseMs !== null ? { [ATTR.firstResponseMs]: turn.firstResponseMs } : {}),
      ...(turn.perceivedLatencyMs !== null ? { [ATTR.perceivedLatencyMs]: turn.perceivedLatencyMs } : {}),
    });
    phaseSpans(t.tracer, span, turn);
    span.end(end);
    t.metrics.turn(turn, { ...base, [ATTR.turnInput]: turn.input });
  };
  const onQuality = (q: { mos: number | null }) => t.metrics.quality(q.mos, base);

  session.on('state', onState);
  session.on('userSpeaking', onSpeaking);
  session.on('transcript', onTranscript);
  session.on('turn', onTurn);
  session.on('quality', onQuality);
  if (session.state.status !== 'idle') onState({ status: 'connecting', attempt: 1 }); // instrumented late: the call span starts now

  return {
    current: () => connecting?.span ?? call,
    get last() {
      return call ?? last;
    },
    dispose() {
      session.off('state', onState);
      session.off('userSpeaking', onSpeaking);
      session.off('transcript', onTranscript);
      session.off('turn', onTurn);
      session.off('quality', onQuality);
      finish(undefined, now());
    },
  };
}

/**
 * The turn's measured phases as spans under it, laid end to end from the speech end: endpointing
 * and service from the start, buffering and playback back from the first sound, network between.
 */
function phaseSpans(tracer: Tracer, parent: Span, turn: Turn): void {
  const { timing } = turn;
  if (timing.speechEndAt === null || turn.perceivedLatencyMs === null) return;
  const begin = timing.speechEndAt;
  const finish = begin + turn.perceivedLatencyMs;
  const ctx = trace.setSpan(context.active(), parent);
  const bounds: Array<[number, number] | null> = [];
  let from: number | null = begin;
  for (const phase of ['endpointing', 'service'] as const) {
    const ms = timing[`${phase}Ms`];
    bounds.push(from === null || ms === null ? null : [from, from + ms]);
    from = from === null || ms === null ? null : from + ms;
  }
  const tail: Array<[number, number] | null> = [];
  let to: number | null = finish;
  for (const phase of ['playback', 'buffering'] as const) {
    const ms = timing[`${phase}Ms`];
    tail.unshift(to === null || ms === null ? null : [to - ms, to]);
    // an unknown output latency is not part of the perceived latency: the buffering still ends at `finish`
    if (ms !== null || phase !== 'playback') to = to === null || ms === null ? null : to - ms;
  }
  const network = timing.networkMs !== null && from !== null ? [from, from + timing.networkMs] as [number, number] : null;
  const all = [...bounds, network, ...tail];
  TIMING_PHASES.forEach((phase, i) => {
    const b = all[i];
    if (!b) return;
    tracer.startSpan(SPAN.phase(phase), { startTime: b[0], attributes: { [ATTR.phase]: phase } }, ctx).end(b[1]);
  });
}
