import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { LabRoute, NetworkLab, hostCandidate, stripCandidates } from 'kb-voice-emulator/lab';

const sockets: dgram.Socket[] = [];
const labs: { close(): void }[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
  for (const l of labs.splice(0)) l.close();
});

async function socket(): Promise<dgram.Socket> {
  const s = dgram.createSocket('udp4');
  sockets.push(s);
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r));
  return s;
}

/** A target that answers every datagram with `echo:<text>` and remembers where each came from. */
async function echoTarget() {
  const s = await socket();
  const sources: string[] = [];
  s.on('message', (msg, from) => {
    sources.push(`${from.address}:${from.port}`);
    s.send(`echo:${msg}`, from.port, from.address);
  });
  return { address: '127.0.0.1', port: s.address().port, sources };
}

/** Resolves once the lab has taken its next datagram from a caller (and decided its fate). */
const taken = (lab: NetworkLab) => new Promise<void>((r) => lab['outer'].once('message', () => setImmediate(r)));

function next(s: dgram.Socket): Promise<string> {
  return new Promise((resolve) => s.once('message', (m) => resolve(m.toString())));
}

describe('NetworkLab (UDP)', () => {
  it('forwards both ways, cuts everything during an outage and recovers after restore()', async () => {
    const target = await echoTarget();
    const lab = await NetworkLab.start(target, { seed: 1 });
    labs.push(lab);
    const caller = await socket();
    const send = (text: string) => caller.send(text, lab.port, lab.address);

    let reply = next(caller);
    send('a');
    expect(await reply).toBe('echo:a');

    lab.outage();
    const dropped = taken(lab);
    send('lost');
    await dropped;
    lab.restore();
    reply = next(caller);
    send('b');
    // the next datagram through is b's answer: the one sent during the outage never arrived
    expect(await reply).toBe('echo:b');
    expect(lab.counters.up).toMatchObject({ packets: 3, dropped: 1, outageDropped: 1 });
    expect(target.sources.length).toBe(2);
  });

  it('applies delay on its clock, and a timed outage ends by itself', async () => {
    const target = await echoTarget();
    let now = 0;
    const timers: { at: number; fn: () => void }[] = [];
    const clock = {
      now: () => now,
      setTimeout: (fn: () => void, ms: number) => {
        const t = { at: now + ms, fn };
        timers.push(t);
        return t;
      },
      clearTimeout: (t: unknown) => void timers.splice(timers.indexOf(t as never), 1),
    };
    const lab = await NetworkLab.start(target, { profile: { up: { delayMs: 100 }, down: {} }, clock });
    labs.push(lab);
    const caller = await socket();
    const sent = taken(lab);
    caller.send('x', lab.port, lab.address);
    await sent;
    // held for 100 ms of lab time
    expect(timers.map((t) => t.at)).toEqual([100]);
    const reply = next(caller);
    now = 100;
    timers.shift()!.fn();
    expect(await reply).toBe('echo:x');

    lab.outage(4000);
    now = 3999;
    expect(lab.up.down(now)).toBe(true);
    now = 4100;
    expect(lab.up.down(now)).toBe(false);
  });

  it('switchPath() makes the traffic reach the service from a new address', async () => {
    const target = await echoTarget();
    const lab = await NetworkLab.start(target);
    labs.push(lab);
    const caller = await socket();
    let reply = next(caller);
    caller.send('1', lab.port, lab.address);
    await reply;
    lab.switchPath();
    reply = next(caller);
    caller.send('2', lab.port, lab.address);
    expect(await reply).toBe('echo:2');
    expect(target.sources[0]).not.toBe(target.sources[1]);
  });
});

const ANSWER = [
  'v=0', 'o=- 1 2 IN IP4 127.0.0.1', 's=-', 't=0 0', 'm=audio 9 UDP/TLS/RTP/SAVPF 111', 'c=IN IP4 0.0.0.0',
  'a=candidate:0 1 udp 2122265343 fd00::2 50363 typ host generation 0',
  'a=candidate:1 1 udp 2122260223 10.0.0.5 40000 typ host generation 0',
  'a=candidate:2 1 udp 2122194687 127.0.0.1 40002 typ host generation 0',
  'a=candidate:3 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active generation 0',
  'a=mid:0', '',
].join('\r\n');

describe('LabRoute', () => {
  it('strips the caller candidates and answers with one candidate: its lab', async () => {
    const route = new LabRoute({ profile: 'wifi', seed: 7 });
    labs.push(route);
    expect(stripCandidates(ANSWER)).not.toMatch(/a=candidate/);
    expect(route.fragment({ media: [{ mline: 'm=audio 9 UDP/TLS/RTP/SAVPF 111', mid: '0', candidates: ['candidate:1 1 udp 1 127.0.0.1 5 typ host'] }], endOfCandidates: false }).media[0]!.candidates).toEqual([]);
    const out = await route.answer(ANSWER, 's1');
    const lab = route.lab('s1')!;
    expect(lab.target).toEqual({ address: '10.0.0.5', port: 40000 });
    expect(out.match(/a=candidate/g)).toHaveLength(1);
    expect(hostCandidate(out)).toMatchObject({ address: '127.0.0.1', port: lab.port });
    expect(out).not.toMatch(/10\.0\.0\.5|fd00::2/);
    expect(lab.up.conditions).toMatchObject({ delayMs: 5, lossPct: 0.1 });
    // an outage holds labs made during it (a reconnection meets the same dead network)
    route.outage();
    await route.answer(ANSWER, 's1');
    expect(route.lab('s1')).not.toBe(lab);
    expect(route.lab('s1')!.up.down(performance.now())).toBe(true);
    route.restore();
    expect(route.labs.every((l) => !l.up.down(performance.now()))).toBe(true);
  });
});
