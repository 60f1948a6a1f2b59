// The page of the OpenAI-SDK end-to-end test: OpenAI's own Agents SDK for realtime voice
// (`@openai/agents-realtime`, unpatched) in the browser, with `RealtimeSession` over its
// `OpenAIRealtimeWebRTC` transport pointed at our `/v1/realtime/calls`. Bundled by the test with
// esbuild; the test drives it through `window.oaiCall`.
import { OpenAIRealtimeWebRTC, RealtimeAgent, RealtimeSession, type RealtimeItem } from '@openai/agents-realtime';

export interface CallResult {
  callId: string | undefined;
  history: RealtimeItem[];
  transcript: string;
  /** Audio energy the browser received on the answer's track (WebRTC stats). */
  audioEnergy: number;
  errors: string[];
  transportEvents: string[];
}

declare global {
  interface Window {
    oaiCall(options: { callsUrl: string; clientSecret: string; model: string; question: string }): Promise<CallResult>;
  }
}

window.oaiCall = async ({ callsUrl, clientSecret, model, question }) => {
  const errors: string[] = [];
  const transportEvents: string[] = [];
  const audioElement = document.createElement('audio');
  document.body.append(audioElement);
  const transport = new OpenAIRealtimeWebRTC({ baseUrl: callsUrl, audioElement });
  const agent = new RealtimeAgent({ name: 'Support', instructions: 'Answer from the knowledge base.' });
  const session = new RealtimeSession(agent, { transport, model });
  session.on('error', (e) => errors.push(String((e.error as { message?: string })?.message ?? JSON.stringify(e.error))));
  session.on('transport_event', (e) => transportEvents.push(e.type));

  await session.connect({ apiKey: clientSecret });
  const answered = new Promise<string>((resolve) => {
    session.on('history_updated', (history) => {
      const reply = history.find((i) => i.type === 'message' && i.role === 'assistant' && i.status === 'completed');
      if (reply?.type === 'message' && reply.role === 'assistant') {
        const part = reply.content.find((c) => c.type === 'output_audio');
        if (part?.type === 'output_audio' && part.transcript) resolve(part.transcript);
      }
    });
  });
  const audioStopped = new Promise<void>((resolve) => session.on('audio_stopped', () => resolve()));
  // The response's last event. Closing before it arrives would hang up while the emulator is still
  // sending, which can crash its process (@roamhq/wrtc's send races a remote close: docs/contributing.md,
  // "A native crash named"); a kb-voice client says session.end and lets the service hang up instead.
  const responseDone = new Promise<void>((resolve) => session.on('transport_event', (e) => e.type === 'response.done' && resolve()));
  session.sendMessage(question);
  const transcript = await answered;
  await audioStopped;
  await responseDone;

  let audioEnergy = 0;
  const pc = transport.connectionState.peerConnection;
  const stats = pc ? await pc.getStats() : new Map();
  stats.forEach((s: { type: string; kind?: string; totalAudioEnergy?: number }) => {
    if (s.type === 'inbound-rtp' && s.kind === 'audio') audioEnergy += s.totalAudioEnergy ?? 0;
  });
  const result: CallResult = { callId: transport.callId, history: structuredClone(session.history), transcript, audioEnergy, errors, transportEvents };
  session.close();
  return result;
};
document.body.dataset.ready = 'true';
