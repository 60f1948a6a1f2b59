// Network paths for bench/ice-paths.mjs, all on this machine: a STUN server that never answers,
// a local coturn (TURN over TCP), and the network lab (kb-voice-emulator/lab) standing in for the
// path between the caller and the emulator, which the bench can cut (test/client/helpers/ice-path.ts
// routes the Node tests through the same lab).
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { sleep } from './common.mjs';
import { loadLab } from './kb.mjs';

/** A UDP socket on loopback that receives STUN requests and never answers (a firewall that drops UDP). */
export async function startSilentStun() {
  const socket = dgram.createSocket('udp4');
  let received = 0;
  socket.on('message', () => received++);
  await new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { url: `stun:127.0.0.1:${socket.address().port}`, get received() { return received; }, close: () => socket.close() };
}

export const TURNSERVER = '/usr/bin/turnserver';

/**
 * Starts coturn on loopback with one long-term user, TCP and UDP listeners (no TLS), relaying on
 * 127.0.0.1 to loopback peers. Null when coturn is not installed (Debian: apt-get install coturn).
 */
export async function startCoturn() {
  if (!existsSync(TURNSERVER)) return null;
  const port = await freeTcpPort();
  const child = spawn(TURNSERVER, [
    '-n', '--listening-ip=127.0.0.1', `--listening-port=${port}`, '--relay-ip=127.0.0.1', '--allow-loopback-peers',
    '--lt-cred-mech', '--user=bench:bench', '--realm=kb-voice.bench', '--no-tls', '--no-dtls', '--no-cli',
    '--min-port=49200', '--max-port=49900', '--log-file=stdout', '--simple-log',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const until = Date.now() + 5000;
  while (!(await canConnect(port))) {
    if (child.exitCode !== null || Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`coturn did not start: ${output.slice(-500)}`);
    }
    await sleep(50);
  }
  return {
    iceServer: { urls: `turn:127.0.0.1:${port}?transport=tcp`, username: 'bench', credential: 'bench' },
    get log() { return output; },
    close: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
    }),
  };
}

async function freeTcpPort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function canConnect(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/**
 * Signaling between page and emulator with every media path through a network lab (NetworkLab): the
 * emulator's first IPv4 host candidate (answer, ICE restart answer) is replaced by a new relay's,
 * the caller's candidates are removed (the emulator learns the relay's address from its checks).
 * `drop()` cuts every relay made so far: the call's network path is gone, as when a NAT binding or
 * the network changes; a restart or a new offer gets a new relay.
 */
export function relayedSignaling(emulatorUrl) {
  const relays = [];
  const lab = loadLab();
  async function throughRelay(sdp) {
    const { hostCandidate, NetworkLab, replaceCandidate } = await lab;
    const candidate = hostCandidate(sdp);
    if (!candidate) return sdp;
    const relay = await NetworkLab.start({ address: candidate.address, port: candidate.port });
    relays.push(relay);
    return replaceCandidate(sdp, candidate, { address: relay.address, port: relay.port });
  }
  /** Handles one signaling request (POST offer, PATCH fragment); true when it answered it. */
  async function handle(req, res) {
    const offer = req.method === 'POST' && req.url.endsWith('/realtime/sessions');
    const patch = req.method === 'PATCH' && /\/realtime\/sessions\/[^/]+$/.test(req.url);
    if (!offer && !patch) return false;
    const chunks = [];
    for await (const c of req) chunks.push(c);
    let body = Buffer.concat(chunks).toString('utf8');
    const { stripCandidates } = await lab;
    if (offer) {
      const json = JSON.parse(body);
      body = JSON.stringify({ ...json, sdp: stripCandidates(json.sdp) });
    } else body = stripCandidates(body);
    const headers = { authorization: req.headers.authorization ?? '', 'content-type': req.headers['content-type'] ?? 'application/json' };
    const up = await fetch(`${emulatorUrl}${req.url}`, { method: req.method, headers, body });
    let text = await up.text();
    const out = { 'content-type': up.headers.get('content-type') ?? 'application/json' };
    if (up.headers.get('location')) out.location = up.headers.get('location');
    if (offer && up.status === 201) {
      const json = JSON.parse(text);
      text = JSON.stringify({ ...json, sdp: await throughRelay(json.sdp) });
    } else if (patch && up.status === 200) text = await throughRelay(text);
    res.writeHead(up.status, out).end(up.status === 204 ? undefined : text);
    return true;
  }
  return { handle, drop: () => relays.forEach((r) => r.close()), get relays() { return relays.length; } };
}
