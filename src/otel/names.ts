/**
 * Span, attribute and instrument names of `kb-voice/otel`: OpenTelemetry's GenAI conventions where
 * they name the thing (a realtime session as `realtime_inference`, a turn as `invoke_agent` with
 * `gen_ai.agent.invocation.end_reason`), `kb_voice.*` where they do not (voice latency, phases,
 * call quality). docs/telemetry.md lists them.
 */
export const SPAN = Object.freeze({
  call: 'realtime_inference',
  connect: 'kb_voice.connect',
  reconnect: 'kb_voice.reconnect',
  turn: 'invoke_agent',
  phase: (phase: string) => `kb_voice.phase.${phase}`,
  relay: (endpoint: string) => `kb_voice.relay ${endpoint}`,
});

export const ATTR = Object.freeze({
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  agentId: 'gen_ai.agent.id',
  conversationId: 'gen_ai.conversation.id',
  realtimeSessionId: 'gen_ai.realtime_session.id',
  endReason: 'gen_ai.agent.invocation.end_reason',
  errorType: 'error.type',
  httpMethod: 'http.request.method',
  httpStatus: 'http.response.status_code',
  callEndReason: 'kb_voice.call.end_reason',
  reconnects: 'kb_voice.call.reconnects',
  reconnectCause: 'kb_voice.reconnect.cause',
  turnId: 'kb_voice.turn.id',
  turnInput: 'kb_voice.turn.input',
  firstResponseMs: 'kb_voice.turn.first_response_ms',
  perceivedLatencyMs: 'kb_voice.turn.perceived_latency_ms',
  phase: 'kb_voice.phase',
  relayEndpoint: 'kb_voice.relay.endpoint',
  requestId: 'kb_voice.relay.request_id',
});

/** The provider name kb-voice reports (`gen_ai.provider.name`). */
export const PROVIDER = 'kb_voice';

export const METRIC = Object.freeze({
  timeToConnected: 'kb_voice.call.time_to_connected',
  perceivedLatency: 'kb_voice.turn.perceived_latency',
  firstResponse: 'kb_voice.turn.first_response',
  phase: 'kb_voice.turn.phase.duration',
  mos: 'kb_voice.call.mos',
  reconnects: 'kb_voice.call.reconnects',
  interruptions: 'kb_voice.turn.interruptions',
});
