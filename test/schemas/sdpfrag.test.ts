import { describe, expect, it } from 'vitest';
import { applyIceRestart, formatSdpFragment, iceCredentials, parseSdpFragment, SDPFRAG_LIMITS, sdpMedia } from '../../src/schemas/index.js';

const CAND = 'candidate:3229573512 1 udp 2122194687 192.0.2.2 43531 typ host generation 0 ufrag EsAw network-id 1';
const FRAG = `a=ice-ufrag:EsAw\r\na=ice-pwd:bP+XJMM09aR8AiX1jdukzR6Y\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=${CAND}\r\na=end-of-candidates\r\n`;

const OFFER = [
  'v=0', 'o=- 4611731400430051336 2 IN IP4 127.0.0.1', 's=-', 't=0 0', 'a=group:BUNDLE 0 1',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111', 'c=IN IP4 0.0.0.0', 'a=ice-ufrag:old1', 'a=ice-pwd:oldpasswordoldpassword12', 'a=mid:0',
  'a=candidate:1 1 udp 1 192.0.2.2 1000 typ host', 'a=end-of-candidates',
  'm=application 9 UDP/DTLS/SCTP webrtc-datachannel', 'c=IN IP4 0.0.0.0', 'a=ice-ufrag:old1', 'a=ice-pwd:oldpasswordoldpassword12', 'a=mid:1', '',
].join('\r\n');

describe('application/trickle-ice-sdpfrag (RFC 8840)', () => {
  it('reads credentials, media sections with their candidates, and end-of-candidates; writes them back', () => {
    const frag = parseSdpFragment(FRAG);
    expect(frag).toEqual({ ufrag: 'EsAw', pwd: 'bP+XJMM09aR8AiX1jdukzR6Y', media: [{ mline: 'audio 9 UDP/TLS/RTP/SAVPF 111', mid: '0', candidates: [CAND] }], endOfCandidates: true });
    expect(formatSdpFragment(frag as Exclude<typeof frag, { error: string }>)).toBe(FRAG);
  });

  it.each([
    ['a malformed candidate', 'm=audio 9 X 0\r\na=mid:0\r\na=candidate:not one\r\n', 'line 3: malformed candidate'],
    ['a candidate outside a media section', `a=${CAND}\r\n`, 'line 1: a candidate outside a media section'],
    ['a media section without a=mid', `m=audio 9 X 0\r\na=${CAND}\r\n`, 'a media section without a=mid'],
    ['an unknown line', 'a=setup:actpass\r\n', 'line 1: unexpected line'],
    ['a short ufrag', 'a=ice-ufrag:ab\r\n', 'line 1: invalid ice-ufrag'],
    ['two different ufrags', 'a=ice-ufrag:abcd\r\na=ice-ufrag:efgh\r\n', 'line 2: two different ice-ufrag values'],
  ])('refuses %s with a message naming it', (_, text, error) => {
    expect(parseSdpFragment(text)).toEqual({ error });
  });

  it('refuses more than the limits', () => {
    const many = `m=audio 9 X 0\r\na=mid:0\r\n${Array.from({ length: SDPFRAG_LIMITS.maxCandidates + 1 }, () => `a=${CAND}`).join('\r\n')}\r\n`;
    expect(parseSdpFragment(many)).toEqual({ error: `more than ${SDPFRAG_LIMITS.maxCandidates} candidates` });
    expect(parseSdpFragment('a'.repeat(SDPFRAG_LIMITS.maxChars + 1))).toEqual({ error: `fragment longer than ${SDPFRAG_LIMITS.maxChars} characters` });
  });

  it('reads the credentials and media sections of a whole SDP', () => {
    expect(iceCredentials(OFFER)).toEqual({ ufrag: 'old1', pwd: 'oldpasswordoldpassword12' });
    expect(sdpMedia(OFFER)).toEqual([{ mline: 'audio 9 UDP/TLS/RTP/SAVPF 111', mid: '0' }, { mline: 'application 9 UDP/DTLS/SCTP webrtc-datachannel', mid: '1' }]);
  });

  it('an ICE restart: new credentials everywhere, the old candidates replaced by the fragment\'s, the session version raised', () => {
    const frag = parseSdpFragment(FRAG) as { ufrag: string; pwd: string; media: []; endOfCandidates: boolean };
    const sdp = applyIceRestart(OFFER, frag);
    expect(iceCredentials(sdp)).toEqual({ ufrag: 'EsAw', pwd: 'bP+XJMM09aR8AiX1jdukzR6Y' });
    expect(sdp).not.toContain('old1');
    expect(sdp).not.toContain('192.0.2.2 1000');
    expect(sdp.match(/^a=candidate:/gm)).toHaveLength(1);
    expect(sdp).toContain(`a=mid:0\r\na=${CAND}\r\na=end-of-candidates\r\n`);
    expect(sdp).toContain('o=- 4611731400430051336 3 IN IP4 127.0.0.1');
    expect(sdp.endsWith('\r\n')).toBe(true);
  });
});
