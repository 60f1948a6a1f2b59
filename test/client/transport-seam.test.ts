import { describe, expect, it } from 'vitest';
import { GOODBYE_CLOSE_MS } from '../../src/client/attempt.js';
import { VoiceSession, VoiceSessionError, v1Protocol, type RealtimeProtocol, type TransportProvider } from '../../src/index.js';
import type { ServerEvent } from '../../src/schemas/index.js';
import { FakeClock, ScriptedService } from '../../src/testing/index.js';

// The seam of issue 11 item 7: VoiceSession reaches the service only through the transport it is
// given and the dialect it is given. A made-up dialect (its own signaling, channel label and
// message format, no ping/pong) plugs in without touching the session.

describe('transport seam', () => {
  it('uses only the given transport: channel label and microphone reach it, messages and audio come from it', async () => {
    const scripted = new ScriptedService();
    const opened: Array<{ channel: string; tracks: number }> = [];
    const transport: TransportProvider = {
      open: (options, events) => {
        opened.push({ channel: options.channel, tracks: options.microphone!.getAudioTracks().length });
        return scripted.transport.open(options, events);
      },
    };
    const session = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions, transport });
    await session.start();
    expect(opened).toEqual([{ channel: 'kb-voice', tracks: 1 }]);
    expect(session.remoteStream).toBeDefined();
    await session.end();
  });

  it('a dialect brings its own signaling and wire format; heartbeat false sends no pings', async () => {
    const clock = new FakeClock();
    const scripted = new ScriptedService({ autoReady: false, clock });
    const signaled: string[] = [];
    const sentLines: string[] = [];
    // "Line protocol": `kind|json`; the service sends `created|{}` when ready.
    const lines: RealtimeProtocol = {
      channel: 'lines',
      heartbeat: false,
      async signal(offer, request) {
        signaled.push(`${request.aiId}:${offer.sdp.slice(0, 3)}`);
        return { sessionId: 'line-session', sdp: 'v=0 answer' };
      },
      codec() {
        return {
          decode(text): readonly ServerEvent[] | VoiceSessionError {
            const [kind, body] = text.split('|', 2) as [string, string];
            if (kind === 'created') return [{ v: 1, type: 'session.ready', session_id: 'line-session', language: 'en', agent_ready: true }];
            if (kind === 'said') return [{ v: 1, type: 'transcript.final', turn_id: 1, role: 'user', text: body }];
            if (kind === 'noise') return [];
            return new VoiceSessionError('protocol_error', `unknown line ${kind}`);
          },
          encode(event) {
            if (event.type === 'ping') return undefined;
            const line = `${event.type}|${JSON.stringify(event)}`;
            sentLines.push(line);
            return line;
          },
        };
      },
    };
    const session = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions, protocol: lines, heartbeatIntervalMs: 10 });
    const starting = session.start();
    await clock.settle();
    scripted.sendRaw('created|{}');
    await starting;
    expect(session.sessionId).toBe('line-session');
    expect(signaled).toEqual(['robot-1:v=0']);
    expect(scripted.offers).toHaveLength(0); // the API's v1 signaling was never used
    scripted.sendRaw('said|hello');
    scripted.sendRaw('noise|');
    expect(session.getSnapshot().live).toEqual({ turnId: 1, user: 'hello', assistant: '' });
    await clock.advance(50); // five heartbeat ticks: this protocol has no ping message, so nothing is sent
    session.sendText('question');
    expect(sentLines).toEqual(['input.text|{"v":1,"type":"input.text","text":"question"}']);
    expect(v1Protocol.channel).toBe('kb-voice');
    // This service does not hang up after the goodbye line: the client closes after its bounded wait.
    const ending = session.end({ mode: 'immediate' });
    await clock.advance(GOODBYE_CLOSE_MS);
    await ending;
    expect(sentLines.at(-1)).toBe('session.end|{"v":1,"type":"session.end"}');
    expect(scripted.calls[0]!.closedBy).toBe('client');
  });
});
