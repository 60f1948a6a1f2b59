import { describe, expect, it } from 'vitest';
import { countCandidates, gradeNetwork, parseCandidate, type GatheredCandidate } from '../../src/check/index.js';

// Candidate lines as Chromium and Firefox give them (addresses changed), one per kind.
const HOST_UDP: GatheredCandidate = { candidate: 'candidate:1467250027 1 udp 2122260223 4f1c7c1e-59d3-4c5c-9f34-0d44b5d3e6a2.local 54400 typ host generation 0 ufrag aBcD network-id 1' };
const HOST_TCP: GatheredCandidate = { candidate: 'candidate:2713829542 1 tcp 1518280447 192.168.1.20 9 typ host tcptype active generation 0' };
const SRFLX: GatheredCandidate = { candidate: 'candidate:842163049 1 udp 1677729535 203.0.113.7 61002 typ srflx raddr 0.0.0.0 rport 0 generation 0', url: 'stun:stun.example.com:3478' };
const RELAY_TCP: GatheredCandidate = { candidate: 'candidate:3155231233 1 udp 8331263 198.51.100.9 50210 typ relay raddr 203.0.113.7 rport 61002 generation 0', relayProtocol: 'tcp', url: 'turn:turn.example.com:443?transport=tcp' };
const RELAY_UDP: GatheredCandidate = { candidate: 'candidate:3155231234 1 udp 41885439 198.51.100.9 50211 typ relay raddr 203.0.113.7 rport 61003 generation 0', relayProtocol: 'udp' };
// Firefox has no relayProtocol: the server URL tells (turns: is TLS over TCP)
const RELAY_TLS_URL_ONLY: GatheredCandidate = { candidate: 'candidate:5 1 UDP 6979583 198.51.100.9 50212 typ relay raddr 198.51.100.9 rport 50212', url: 'turns:turn.example.com:5349' };

const STUN = [{ urls: 'stun:stun.example.com:3478' }];
const TURN_TCP = [{ urls: ['stun:stun.example.com:3478', 'turn:turn.example.com:443?transport=tcp'], username: 'u', credential: 'c' }];

describe('network part of checkCall', () => {
  it('parses candidate lines and ignores what is not one', () => {
    expect(parseCandidate(SRFLX.candidate)).toEqual({ protocol: 'udp', type: 'srflx' });
    expect(parseCandidate(`a=${HOST_TCP.candidate}`)).toEqual({ protocol: 'tcp', type: 'host' });
    expect(parseCandidate('not a candidate')).toBeUndefined();
    expect(countCandidates([HOST_UDP, HOST_TCP, SRFLX, RELAY_TCP, RELAY_UDP, RELAY_TLS_URL_ONLY, { candidate: '' }]))
      .toEqual({ host: 2, srflx: 1, relay: 3, relayTcp: 2, udp: 2 });
  });

  it('UDP seen through STUN: good', () => {
    const r = gradeNetwork([HOST_UDP, SRFLX], STUN);
    expect([r.grade, r.code, r.udp]).toEqual(['good', 'udp_ok', true]);
  });

  it('UDP blocked (no UDP candidate at all, as with a firewall or a browser policy): bad, needs TURN over TCP', () => {
    const r = gradeNetwork([HOST_TCP], []);
    expect([r.grade, r.code, r.udp]).toEqual(['bad', 'needs_turn_tcp', false]);
    expect(r.message).toMatch(/TURN over TCP/);
  });

  it('UDP blocked (STUN never answered): bad without TURN, good through TURN over TCP', () => {
    expect(gradeNetwork([HOST_UDP], STUN)).toMatchObject({ grade: 'bad', code: 'needs_turn_tcp', udp: false });
    expect(gradeNetwork([HOST_UDP, RELAY_TCP], TURN_TCP)).toMatchObject({ grade: 'good', code: 'turn_tcp', udp: false });
    expect(gradeNetwork([HOST_TCP, RELAY_TLS_URL_ONLY], [{ urls: 'turns:turn.example.com:5349' }])).toMatchObject({ grade: 'good', code: 'turn_tcp' });
    expect(gradeNetwork([HOST_UDP, RELAY_UDP], [{ urls: 'turn:turn.example.com' }])).toMatchObject({ grade: 'warning', code: 'turn_udp_only' });
  });

  it('TURN over TCP configured but silent: bad when UDP is blocked, warning when UDP works', () => {
    expect(gradeNetwork([HOST_UDP], TURN_TCP)).toMatchObject({ grade: 'bad', code: 'needs_turn_tcp' });
    expect(gradeNetwork([HOST_UDP], TURN_TCP).message).toMatch(/did not answer/);
    expect(gradeNetwork([HOST_UDP, SRFLX], TURN_TCP)).toMatchObject({ grade: 'warning', code: 'turn_unreachable' });
  });

  it('no server to ask: UDP leaves this device, unverified beyond it', () => {
    expect(gradeNetwork([HOST_UDP], [])).toMatchObject({ grade: 'good', code: 'udp_unverified', udp: null });
  });
});
