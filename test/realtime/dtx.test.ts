import { describe, expect, it } from 'vitest';
import { preferOpusDtx } from '../../emulator/src/realtime/sdp-answer.js';
import { fixture48k, realtimeFixture, sleep } from './helpers.js';

describe('preferOpusDtx (the answer asks the caller for Opus DTX)', () => {
  const offerish = ['v=0', 'm=audio 9 UDP/TLS/RTP/SAVPF 111 63 0', 'a=rtpmap:111 opus/48000/2', 'a=fmtp:111 minptime=10;useinbandfec=1', 'a=rtpmap:63 red/48000/2', 'a=fmtp:63 111/111', 'a=rtpmap:0 PCMU/8000', ''].join('\r\n');

  it('adds usedtx=1 to every Opus fmtp and nothing else', () => {
    const out = preferOpusDtx(offerish);
    expect(out).toContain('a=fmtp:111 minptime=10;useinbandfec=1;usedtx=1\r\n');
    expect(out).toContain('a=fmtp:63 111/111\r\n');
    expect(out.split('\r\n')).toHaveLength(offerish.split('\r\n').length);
  });
  it('adds an fmtp line for an Opus payload that has none, keeps an explicit choice, leaves SDP without Opus alone', () => {
    expect(preferOpusDtx('m=audio 9 RTP/AVP 96\na=rtpmap:96 opus/48000/2\na=ptime:20\n')).toBe('m=audio 9 RTP/AVP 96\na=rtpmap:96 opus/48000/2\na=fmtp:96 usedtx=1\na=ptime:20\n');
    const explicit = offerish.replace('useinbandfec=1', 'useinbandfec=1;usedtx=0');
    expect(preferOpusDtx(explicit)).toBe(explicit);
    const pcmu = 'm=audio 9 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n';
    expect(preferOpusDtx(pcmu)).toBe(pcmu);
  });
});

// A silent caller sends almost nothing once the emulator's answer asks for DTX, and its speech
// still makes a turn. Without DTX a 20 ms Opus stream is 50 packets per second, silent or not.
describe('realtime answer with Opus DTX over WebRTC', () => {
  const rt = realtimeFixture({ voice: 'builtin' });

  it('negotiates usedtx=1, so silence costs a few packets a second and speech still flows', async () => {
    const caller = await rt.connect();
    expect(caller.answerSdp).toMatch(/^a=fmtp:111 .*usedtx=1/m);
    await caller.waitFor('session.ready');

    await sleep(500); // DTX engages after a few hundred ms of silence
    const before = await caller.packetsSent();
    await sleep(2000);
    const silent = (await caller.packetsSent()) - before;
    expect(silent).toBeLessThan(25); // 100 without DTX

    const speech = await fixture48k('boil-time.wav');
    const atSpeech = await caller.packetsSent();
    await caller.say(speech);
    expect((await caller.packetsSent()) - atSpeech).toBeGreaterThan((speech.length / 48000) * 25);
    const stopped = await caller.waitFor('input.speech_stopped');
    expect(stopped.duration_ms).toBeGreaterThan(2000);
    await caller.waitFor('output.speech_started', (e) => e.turn_id === stopped.turn_id, 20000);
  });
});
