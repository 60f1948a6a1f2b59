/**
 * `application/trickle-ice-sdpfrag` (RFC 8840), the body of the realtime session resource's
 * `PATCH` (trickled candidates, end-of-candidates, ICE restarts), as WHIP (RFC 9725) uses it.
 * Shared by the client (writes fragments, reads restart answers) and the emulator (reads them).
 */

export const SDPFRAG_CONTENT_TYPE = 'application/trickle-ice-sdpfrag';

/** Largest fragment accepted (bytes of text) and most candidates in one. */
export const SDPFRAG_LIMITS = Object.freeze({ maxChars: 16_384, maxCandidates: 64 });

/** One media section of a fragment: its `m=` line, `a=mid` and candidate attributes (without `a=`). */
export interface SdpFragmentMedia {
  mline: string;
  mid: string;
  candidates: string[];
}

/** A parsed fragment. `ufrag`/`pwd` may sit at session or media level; both are read here. */
export interface SdpFragment {
  ufrag?: string;
  pwd?: string;
  media: SdpFragmentMedia[];
  endOfCandidates: boolean;
}

/** `candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> ...`, as in RFC 8839. */
const CANDIDATE = /^candidate:[A-Za-z0-9+/]{1,32} \d{1,3} (?:udp|tcp|UDP|TCP) \d{1,10} [A-Za-z0-9.:_-]{1,253} \d{1,5} typ (?:host|srflx|prflx|relay)(?: [\x21-\x7e]{1,64})*$/;
const ICE_CHAR = /^[A-Za-z0-9+/]+$/;

/** Reads a fragment; a message naming the first problem when it is not one this side can use. */
export function parseSdpFragment(text: string): SdpFragment | { error: string } {
  if (text.length > SDPFRAG_LIMITS.maxChars) return { error: `fragment longer than ${SDPFRAG_LIMITS.maxChars} characters` };
  const frag: SdpFragment = { media: [], endOfCandidates: false };
  let current: SdpFragmentMedia | undefined;
  let count = 0;
  const lines = text.split(/\r?\n/).filter((l) => l !== '');
  for (const [i, line] of lines.entries()) {
    const at = `line ${i + 1}`;
    if (line.startsWith('m=')) {
      current = { mline: line.slice(2), mid: '', candidates: [] };
      frag.media.push(current);
    } else if (line.startsWith('a=mid:')) {
      if (!current) return { error: `${at}: a=mid outside a media section` };
      current.mid = line.slice(6);
    } else if (line.startsWith('a=ice-ufrag:') || line.startsWith('a=ice-pwd:')) {
      const [key, value = ''] = [line.slice(2, line.indexOf(':')), line.slice(line.indexOf(':') + 1)];
      const [min, max] = key === 'ice-ufrag' ? [4, 256] : [22, 256];
      if (value.length < min || value.length > max || !ICE_CHAR.test(value)) return { error: `${at}: invalid ${key}` };
      const field = key === 'ice-ufrag' ? 'ufrag' : 'pwd';
      if (frag[field] !== undefined && frag[field] !== value) return { error: `${at}: two different ${key} values` };
      frag[field] = value;
    } else if (line.startsWith('a=candidate:')) {
      if (!current) return { error: `${at}: a candidate outside a media section` };
      const candidate = line.slice(2);
      if (!CANDIDATE.test(candidate)) return { error: `${at}: malformed candidate` };
      if (++count > SDPFRAG_LIMITS.maxCandidates) return { error: `more than ${SDPFRAG_LIMITS.maxCandidates} candidates` };
      current.candidates.push(candidate);
    } else if (line === 'a=end-of-candidates') {
      frag.endOfCandidates = true;
    } else if (!/^a=(?:ice-options|group):/.test(line)) {
      return { error: `${at}: unexpected line` };
    }
  }
  if (frag.media.some((m) => m.mid === '')) return { error: 'a media section without a=mid' };
  return frag;
}

/** Writes a fragment (ufrag/pwd at session level, as WHIP's examples do). */
export function formatSdpFragment(frag: SdpFragment): string {
  const lines: string[] = [];
  if (frag.ufrag) lines.push(`a=ice-ufrag:${frag.ufrag}`);
  if (frag.pwd) lines.push(`a=ice-pwd:${frag.pwd}`);
  for (const m of frag.media) {
    lines.push(`m=${m.mline}`, `a=mid:${m.mid}`, ...m.candidates.map((c) => `a=${c}`));
  }
  if (frag.endOfCandidates) lines.push('a=end-of-candidates');
  return `${lines.join('\r\n')}\r\n`;
}

/** The ICE credentials of an SDP (the first ones found: BUNDLE shares one transport). */
export function iceCredentials(sdp: string): { ufrag: string; pwd: string } | undefined {
  const ufrag = /^a=ice-ufrag:(\S+)/m.exec(sdp)?.[1];
  const pwd = /^a=ice-pwd:(\S+)/m.exec(sdp)?.[1];
  return ufrag && pwd ? { ufrag, pwd } : undefined;
}

/** The media sections of an SDP: `m=` line (without `m=`) and mid, in order. */
export function sdpMedia(sdp: string): { mline: string; mid: string }[] {
  return sdp.split(/\r?\n(?=m=)/).slice(1).map((section) => ({
    mline: /^m=(.*)$/m.exec(section)![1]!.trim(),
    mid: /^a=mid:(\S+)/m.exec(section)?.[1] ?? '',
  }));
}

/**
 * `sdp` with new ICE credentials, its candidates replaced by the fragment's (per mid), and the
 * `o=` session version raised: the description of the far side after an ICE restart.
 */
export function applyIceRestart(sdp: string, frag: SdpFragment & { ufrag: string; pwd: string }): string {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const out: string[] = [];
  for (const line of sdp.split(/\r?\n/)) {
    if (line === '') continue;
    if (line.startsWith('a=candidate:') || line === 'a=end-of-candidates') continue;
    if (line.startsWith('a=ice-ufrag:')) out.push(`a=ice-ufrag:${frag.ufrag}`);
    else if (line.startsWith('a=ice-pwd:')) out.push(`a=ice-pwd:${frag.pwd}`);
    else if (line.startsWith('o=')) out.push(line.replace(/^(o=\S+ \S+ )(\d+)/, (_, head: string, v: string) => `${head}${BigInt(v) + 1n}`));
    else out.push(line);
    const mid = line.startsWith('a=mid:') ? line.slice(6) : undefined;
    const media = mid === undefined ? undefined : frag.media.find((m) => m.mid === mid);
    if (media) out.push(...media.candidates.map((c) => `a=${c}`), ...(frag.endOfCandidates ? ['a=end-of-candidates'] : []));
  }
  return `${out.join(eol)}${eol}`;
}
