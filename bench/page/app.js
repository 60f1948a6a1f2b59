// Bench page script (bundled by esbuild from the BUILT package: `kb-voice` resolves to dist/).
// Two ways to make the same call to the same emulator, timed identically in the page:
// - library: new VoiceSession(...).start() — what an app's "call" click handler runs;
// - floor: a bare RTCPeerConnection doing the same SDP exchange (mic with the same voice-processing
//   constraints, data channel `kb-voice`, non-trickle offer, POST /realtime/sessions, answer) and
//   waiting for the same things (channel open, remote track, `session.ready`).
// Both then wait, with the same getStats() poll, until outbound-rtp audio packetsSent > 0 (the
// mic's audio is leaving for the emulator). The return direction counts as ready once the remote
// audio track arrived (ontrack) and `session.ready` came: the emulator sends RTP only while the
// assistant speaks (no idle frames), so inbound-rtp packetsReceived stays 0 until a first answer
// and cannot mark "connected". t0 is taken where a click handler would start.
import { VoiceSession, createApiClient } from 'kb-voice';

const params = new URLSearchParams(location.search);
const aiId = params.get('ai_id');
const apiKey = params.get('api_key');
const baseUrl = location.origin; // the bench server proxies /v1 to the emulator (same origin, no CORS)

// Every RTCPeerConnection made on the page (by simple-peer inside VoiceSession, or by the floor)
// is recorded so both are polled with the same getStats() code.
const created = [];
const NativePC = window.RTCPeerConnection;
window.RTCPeerConnection = class RecordedPeerConnection extends NativePC {
  constructor(...args) {
    super(...args);
    created.push(this);
  }
};

const VOICE_PROCESSING = { echoCancellation: true, noiseSuppression: true, autoGainControl: true };
const POLL_MS = 5;

async function audioFlowing(pc, deadline) {
  for (;;) {
    const stats = await pc.getStats();
    let received = 0;
    let sent = 0;
    stats.forEach((s) => {
      if (s.type === 'inbound-rtp' && s.kind === 'audio') received += s.packetsReceived ?? 0;
      if (s.type === 'outbound-rtp' && s.kind === 'audio') sent += s.packetsSent ?? 0;
    });
    if (sent > 0) return { received, sent };
    if (performance.now() > deadline) throw new Error(`audio not flowing (received ${received}, sent ${sent})`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

let current = null; // what to tear down after a measured call

async function library() {
  const t0 = performance.now();
  const before = created.length;
  const api = createApiClient({ baseUrl, apiKey });
  const session = new VoiceSession({ aiId, api, language: 'ja' });
  current = { kind: 'library', session };
  await session.start();
  const tConnected = performance.now();
  const pc = created[created.length - 1];
  if (created.length === before || !pc) throw new Error('no RTCPeerConnection was created by VoiceSession');
  const flow = await audioFlowing(pc, t0 + 15000);
  const tFlowing = performance.now();
  return { total: tFlowing - t0, connected: tConnected - t0, flowing: tFlowing - t0, ...flow, sessionId: session.sessionId };
}

async function floor() {
  const t0 = performance.now();
  const mic = await navigator.mediaDevices.getUserMedia({ audio: VOICE_PROCESSING, video: false });
  const tMic = performance.now();
  const pc = new window.RTCPeerConnection({ iceServers: [] });
  current = { kind: 'floor', pc, mic };
  for (const track of mic.getTracks()) pc.addTrack(track, mic);
  const dc = pc.createDataChannel('kb-voice');
  const opened = new Promise((resolve) => (dc.onopen = resolve));
  const ready = new Promise((resolve) => {
    dc.onmessage = (e) => {
      try {
        if (JSON.parse(e.data).type === 'session.ready') resolve();
      } catch { /* not JSON: ignore */ }
    };
  });
  const track = new Promise((resolve) => (pc.ontrack = resolve));
  const gathered = new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') resolve();
    pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && resolve();
  });
  await pc.setLocalDescription(await pc.createOffer());
  await gathered;
  const tOffer = performance.now();
  const res = await fetch(`${baseUrl}/v1/robots/${aiId}/realtime/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ type: 'offer', sdp: pc.localDescription.sdp, language: 'ja' }),
  });
  if (res.status !== 201) throw new Error(`signaling ${res.status}: ${await res.text()}`);
  const answer = await res.json();
  const tAnswer = performance.now();
  await pc.setRemoteDescription({ type: 'answer', sdp: answer.sdp });
  await Promise.all([opened, track, ready]);
  const tConnected = performance.now();
  current.sessionId = answer.session_id;
  current.dc = dc;
  const flow = await audioFlowing(pc, t0 + 15000);
  const tFlowing = performance.now();
  return {
    total: tFlowing - t0, connected: tConnected - t0, flowing: tFlowing - t0,
    mic: tMic - t0, offer: tOffer - tMic, signaling: tAnswer - tOffer, ...flow, sessionId: answer.session_id,
  };
}

async function hangUp() {
  const c = current;
  current = null;
  if (!c) return;
  if (c.kind === 'library') {
    await c.session.end({ mode: 'immediate' }).catch(() => {});
  } else {
    try { c.dc?.readyState === 'open' && c.dc.send(JSON.stringify({ v: 1, type: 'session.end' })); } catch { /* closing anyway */ }
    c.pc.close();
    for (const t of c.mic.getTracks()) t.stop();
  }
}

window.bench = {
  async run(kind) {
    try {
      const result = kind === 'library' ? await library() : await floor();
      return { ok: true, ...result };
    } catch (err) {
      return { ok: false, error: String(err?.message ?? err) };
    } finally {
      await hangUp();
    }
  },
};
document.getElementById('status').textContent = 'ready';
