// Bench page script (bundled by esbuild from the BUILT package: `kb-voice` resolves to dist/).
// Two ways to make the same call to the same emulator, timed identically in the page:
// - library: new VoiceSession(...).start() — what an app's "call" click handler runs;
// - floor: a bare RTCPeerConnection doing the same SDP exchange (mic with the same voice-processing
//   constraints, data channel `kb-voice`, non-trickle offer, POST /realtime/sessions, answer) and
//   waiting for the same things (channel open, remote track, `session.ready`);
// - floor-trickle: the same bare RTCPeerConnection trickling the way the library does: the offer
//   is POSTed as soon as it exists, candidates (one PATCH in flight at a time, each carrying all
//   gathered meanwhile) and end-of-candidates go to the 201's Location as trickle-ice-sdpfrag.
// Library calls take options (ICE servers, transport policy, recovery by new offer only), and
// `recover()` measures a dropped link's way back (bench/ice-paths.mjs drops it).
// Both then wait, with the same getStats() poll, until outbound-rtp audio packetsSent > 0 (the
// mic's audio is leaving for the emulator). The return direction counts as ready once the remote
// audio track arrived (ontrack) and `session.ready` came: the emulator sends RTP only while the
// assistant speaks (no idle frames), so inbound-rtp packetsReceived stays 0 until a first answer
// and cannot mark "connected". t0 is taken where a click handler would start.
import { VoiceSession, createApiClient, simplePeerTransport } from 'kb-voice';

const params = new URLSearchParams(location.search);
const aiId = params.get('ai_id');
const apiKey = params.get('api_key');
const baseUrl = location.origin; // the bench server proxies /v1 to the emulator (same origin, no CORS)

// Every RTCPeerConnection made on the page (by simple-peer inside VoiceSession, or by the floor)
// is recorded so both are polled with the same getStats() code.
const created = [];
const NativePC = window.RTCPeerConnection;
/** When each step of the library's latest call happened (ms since its t0), for the phase notes. */
let marks = {};
let markT0 = 0;
const mark = (name) => {
  if (!(name in marks)) marks[name] = performance.now() - markT0;
};
window.RTCPeerConnection = class RecordedPeerConnection extends NativePC {
  constructor(...args) {
    super(...args);
    created.push(this);
    mark('pc');
    this.addEventListener('iceconnectionstatechange', () => this.iceConnectionState === 'connected' && mark('ice'));
  }
  setLocalDescription(...args) {
    mark('offer');
    return super.setLocalDescription(...args);
  }
  setRemoteDescription(...args) {
    mark('answer');
    return super.setRemoteDescription(...args);
  }
};
const nativeFetch = window.fetch.bind(window);
window.fetch = (input, init) => {
  const url = String(input instanceof Request ? input.url : input);
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  if (method === 'POST' && url.endsWith('/realtime/sessions')) mark('post');
  if (!recovering || !/\/realtime\/sessions/.test(url)) return nativeFetch(input, init);
  const started = performance.now();
  const entry = [method, started - recovering];
  recoveryRequests.push(entry);
  return nativeFetch(input, init).then((r) => (entry.push(performance.now() - recovering, r.status), r));
};
/** Signaling requests during recover(): [method, sent, answered, status] in ms since the cut. */
let recovering = 0;
let recoveryRequests = [];

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

/** Id of the connection's selected, succeeded candidate pair (getStats), or null. */
async function selectedPair(pc) {
  if (!pc || pc.connectionState === 'closed') return null;
  const stats = await pc.getStats();
  let id = null;
  stats.forEach((s) => {
    if (s.type === 'transport' && s.selectedCandidatePairId) id = s.selectedCandidatePairId;
  });
  const pair = id && stats.get(id);
  return pair && pair.state === 'succeeded' ? `${pair.localCandidateId}/${pair.remoteCandidateId}` : null;
}

/** The default transport (recovery by new offer), or one that first restarts ICE in place (`iceRestart`). */
function transportFor(opts) {
  return simplePeerTransport({
    ...(opts.iceServers ? { iceServers: opts.iceServers } : {}),
    ...(opts.iceTransportPolicy ? { iceTransportPolicy: opts.iceTransportPolicy } : {}),
    ...(opts.noRestart ? {} : { iceRestart: true }),
  });
}

async function library(opts = {}) {
  const t0 = performance.now();
  const before = created.length;
  const api = createApiClient({ baseUrl, apiKey });
  marks = {};
  markT0 = t0;
  const session = new VoiceSession({ aiId, api, language: 'ja', transport: transportFor(opts), ...(opts.heartbeatIntervalMs ? { heartbeatIntervalMs: opts.heartbeatIntervalMs } : {}) });
  current = { kind: 'library', session };
  await session.start();
  const tConnected = performance.now();
  const pc = created[created.length - 1];
  if (created.length === before || !pc) throw new Error('no RTCPeerConnection was created by VoiceSession');
  const flow = await audioFlowing(pc, t0 + 15000);
  const tFlowing = performance.now();
  return { total: tFlowing - t0, connected: tConnected - t0, flowing: tFlowing - t0, ...flow, sessionId: session.sessionId, iceSignaling: session.getSnapshot().iceSignaling, marks: { ...marks } };
}

/**
 * A dropped link's way back, on the call `library()` left up (`keep`): asks the bench server to
 * cut the network path, then times the session's `reconnecting` and `connected` again.
 */
async function recover() {
  const session = current?.session;
  if (!session || session.state.status !== 'connected') throw new Error('no connected library call to drop');
  const states = [];
  const back = new Promise((resolve) => {
    const on = (s) => {
      states.push([s.status, performance.now()]);
      if (s.status === 'connected' || s.status === 'ended' || s.status === 'failed') {
        session.off('state', on);
        resolve(s.status);
      }
    };
    session.on('state', on);
  });
  const before = created.at(-1);
  const pairBefore = await selectedPair(before);
  const t0 = performance.now();
  recoveryRequests = [];
  const res = await fetch('/_bench/drop', { method: 'POST' });
  recovering = t0;
  // When ICE has a working pair again (a new selected pair on the same connection, or any on a new
  // one): the media path is back, whatever the data channel still waits for.
  let tPath = NaN;
  const watching = (async () => {
    while (current?.session === session && Number.isNaN(tPath)) {
      const pc = created.at(-1);
      const pair = await selectedPair(pc);
      if (pair && (pc !== before || pair !== pairBefore)) tPath = performance.now();
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  if (!res.ok) throw new Error(`drop: ${res.status}`);
  const status = await back;
  if (status !== 'connected') throw new Error(`not restored: ${status}`);
  const tLost = states.find(([s]) => s === 'reconnecting')?.[1] ?? NaN;
  const tBack = states.at(-1)[1];
  recovering = 0;
  await Promise.race([watching, new Promise((r) => setTimeout(r, 50))]);
  return { path: tPath - t0, total: tBack - t0, detect: tLost - t0, restore: tBack - tLost, attempts: states.filter(([s]) => s === 'reconnecting').length, requests: recoveryRequests.map((r) => r.map((x) => (typeof x === 'number' ? Math.round(x) : x))) };
}

/** Resolves once `test()` holds, polling every 50 ms; rejects after `ms`. */
async function until(test, ms, what) {
  const end = performance.now() + ms;
  while (!test()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A call on a network-lab profile (bench/network-profiles.mjs): the fake microphone loops a spoken
 * question. Times connected, waits for `before` voice turns, asks the bench server for an outage
 * of `outageMs`, times the way back (`connected` again, from the outage's end), waits for `after`
 * more voice turns, and returns every turn's latencies with the call's quality report.
 */
async function profileCall({ before = 1, after = 1, outageMs = 4000, turnTimeoutMs = 45000 } = {}) {
  const t0 = performance.now();
  const session = new VoiceSession({ aiId, api: createApiClient({ baseUrl, apiKey }), language: 'en' });
  current = { kind: 'library', session };
  const turns = [];
  const states = [];
  session.on('turn', (t) => turns.push({ input: t.input, firstResponseMs: t.firstResponseMs, perceivedLatencyMs: t.perceivedLatencyMs }));
  session.on('state', (s) => states.push([s.status, performance.now()]));
  await session.start();
  const connectedMs = performance.now() - t0;
  const voice = () => turns.filter((t) => t.input === 'voice').length;
  await until(() => voice() >= before, turnTimeoutMs * before, `${before} voice turn(s)`);
  const tCut = performance.now();
  const res = await fetch(`/_bench/outage?ms=${outageMs}`, { method: 'POST' });
  if (!res.ok) throw new Error(`outage: ${res.status}`);
  await until(() => states.some(([s, t]) => s === 'reconnecting' && t >= tCut) && states.at(-1)[0] === 'connected', outageMs + 30000, 'the call back after the outage');
  const tLost = states.find(([s, t]) => s === 'reconnecting' && t >= tCut)[1];
  const tBack = states.at(-1)[1];
  const expected = before + after;
  await until(() => voice() >= expected, turnTimeoutMs * after, `${expected} voice turns`).catch(() => {});
  const report = await session.report();
  return { connectedMs, detectMs: tLost - tCut, recoveryMs: tBack - (tCut + outageMs), turns, expectedTurns: expected, quality: report.quality };
}

/** The bare RTCPeerConnection, trickling as the library does (see the header). */
async function floorTrickle() {
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
  let resource = null;
  let inflight = false;
  let ended = false;
  let endSent = false;
  const queue = [];
  const flush = async () => {
    if (!resource || inflight || (queue.length === 0 && !(ended && !endSent))) return;
    inflight = true;
    const sdp = pc.localDescription.sdp;
    const mline = /^m=(.*)$/m.exec(sdp)[1];
    const mid = /^a=mid:(\S+)/m.exec(sdp)[1];
    const end = ended && !endSent;
    const lines = [`a=ice-ufrag:${/^a=ice-ufrag:(\S+)/m.exec(sdp)[1]}`, `a=ice-pwd:${/^a=ice-pwd:(\S+)/m.exec(sdp)[1]}`, `m=${mline}`, `a=mid:${mid}`, ...queue.splice(0).map((c) => `a=${c.candidate}`), ...(end ? ['a=end-of-candidates'] : [])];
    await fetch(`${baseUrl}${resource}`, { method: 'PATCH', headers: { 'content-type': 'application/trickle-ice-sdpfrag', authorization: `Bearer ${apiKey}` }, body: `${lines.join('\r\n')}\r\n` });
    if (end) endSent = true;
    inflight = false;
    void flush();
  };
  pc.onicecandidate = (e) => {
    if (e.candidate) queue.push(e.candidate);
    else ended = true;
    void flush();
  };
  await pc.setLocalDescription(await pc.createOffer());
  const tOffer = performance.now();
  const res = await fetch(`${baseUrl}/v1/robots/${aiId}/realtime/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ type: 'offer', sdp: pc.localDescription.sdp, language: 'ja' }),
  });
  if (res.status !== 201) throw new Error(`signaling ${res.status}: ${await res.text()}`);
  const answer = await res.json();
  const tAnswer = performance.now();
  resource = res.headers.get('location');
  await pc.setRemoteDescription({ type: 'answer', sdp: answer.sdp });
  void flush();
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
  /** One measured call; `opts.keep` leaves it up for recover(). */
  async run(kind, opts = {}) {
    let keep = false;
    try {
      const result = kind === 'library' ? await library(opts) : kind === 'floor-trickle' ? await floorTrickle() : await floor();
      keep = Boolean(opts.keep);
      return { ok: true, ...result };
    } catch (err) {
      return { ok: false, error: String(err?.message ?? err) };
    } finally {
      if (!keep) await hangUp();
    }
  },
  async profileCall(opts) {
    try {
      return { ok: true, ...(await profileCall(opts)) };
    } catch (err) {
      return { ok: false, error: String(err?.message ?? err) };
    } finally {
      await hangUp();
    }
  },
  async recover() {
    try {
      return { ok: true, ...(await recover()) };
    } catch (err) {
      return { ok: false, error: String(err?.message ?? err) };
    } finally {
      await hangUp();
    }
  },
};
document.getElementById('status').textContent = 'ready';
