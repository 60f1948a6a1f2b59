// The page of the VoiceSession-over-OpenAI-dialect end-to-end test: kb-voice's own VoiceSession with
// `openaiProtocol`, signaling through the relay's unified interface. Bundled by the test with esbuild
// from the built package (like an app would).
import { createApiClient, openaiProtocol, VoiceSession, type SessionReport, type Turn, type VoiceSessionError } from 'kb-voice';

export interface VoiceSessionResult {
  sessionId: string | undefined;
  turn: Turn;
  snapshotTurns: number;
  report: SessionReport;
  errors: string[];
}

declare global {
  interface Window {
    kbVoiceCall(options: { relayUrl: string; aiId: string; question: string }): Promise<VoiceSessionResult>;
  }
}

window.kbVoiceCall = async ({ relayUrl, aiId, question }) => {
  const errors: string[] = [];
  const session = new VoiceSession({
    aiId,
    api: createApiClient({ baseUrl: relayUrl }),
    protocol: openaiProtocol({ relayUrl }),
    language: 'en',
  });
  session.on('error', (e: VoiceSessionError) => errors.push(`${e.code}: ${e.message}`));
  await session.start();
  const turn = await new Promise<Turn>((resolve) => {
    session.once('turn', resolve);
    session.sendText(question);
  });
  const snapshotTurns = session.getSnapshot().turns.length;
  await session.end();
  const report = await session.report();
  return { sessionId: session.sessionId, turn, snapshotTurns, report, errors };
};
document.body.dataset.ready = 'true';
