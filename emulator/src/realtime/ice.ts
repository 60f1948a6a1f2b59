import type Peer from 'simple-peer';
import { applyIceRestart, formatSdpFragment, iceCredentials, sdpMedia, type SdpFragment } from 'kb-voice/schemas';
import { invalid } from '../http/errors.js';
import { RealtimeOfferError } from './errors.js';
import { sleep } from '../time.js';

/** How long after its first ICE candidate the emulator stops gathering for an answer (ms). */
export const ANSWER_GATHER_MS = 10;

/**
 * The ICE side of one answering peer's session resource (WHIP-style PATCH): trickled candidates
 * and ICE restarts, applied in order. The emulator does not trickle its own candidates: it answers
 * offers and restarts with what it gathered within ANSWER_GATHER_MS of its first candidate.
 */
export class SessionIce {
  readonly #peer: Peer.Instance;
  /** The caller's current offer: its ICE credentials change with each restart. */
  #offer: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(peer: Peer.Instance, offerSdp: string) {
    this.#peer = peer;
    this.#offer = offerSdp;
  }

  /**
   * One PATCH, applied after the ones before it: an ICE restart when the fragment carries
   * credentials other than the offer's (resolves to the answer fragment), else trickled candidates
   * (resolves null). Throws HttpError 422 for a fragment this session cannot use.
   */
  patch(fragment: SdpFragment): Promise<string | null> {
    const run = this.#queue.then(() => this.#applyPatch(fragment));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #applyPatch(fragment: SdpFragment): Promise<string | null> {
    const current = iceCredentials(this.#offer);
    if (fragment.ufrag && fragment.ufrag !== current?.ufrag) {
      if (!fragment.pwd) throw invalid(['body'], 'an ICE restart needs a=ice-pwd with the new a=ice-ufrag');
      return this.#restart({ ...fragment, ufrag: fragment.ufrag, pwd: fragment.pwd });
    }
    if (fragment.pwd && fragment.pwd !== current?.pwd) throw invalid(['body'], 'a=ice-pwd differs from the session\'s without a new a=ice-ufrag');
    const mids = sdpMedia(this.#offer).map((m) => m.mid);
    for (const media of fragment.media) {
      const index = mids.indexOf(media.mid);
      if (index < 0) throw invalid(['body'], `no media section with mid ${media.mid} in the offer`);
      for (const candidate of media.candidates) {
        const ufrag = /\bufrag (\S+)/.exec(candidate)?.[1];
        if (ufrag !== undefined && ufrag !== current?.ufrag) continue; // an older ICE generation's
        // Straight to the RTCPeerConnection: simple-peer destroys the peer when a candidate is
        // refused, and one odd candidate must not end the call.
        await this.#pc?.addIceCandidate({ candidate, sdpMid: media.mid, sdpMLineIndex: index }).catch(() => undefined);
      }
    }
    return null;
  }

  /** ICE restart (WHIP): the offer again with the new credentials, answered in place; the data channel, tracks and turns stay. */
  async #restart(fragment: SdpFragment & { ufrag: string; pwd: string }): Promise<string> {
    const offer = applyIceRestart(this.#offer, fragment);
    const answer = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => done(new RealtimeOfferError('signaling_timeout', 504, 'no answer to the ICE restart')), 5000);
      const onSignal = (data: Peer.SignalData) => {
        if (data.type === 'answer' && data.sdp) done(undefined, data.sdp);
      };
      const onClose = () => done(new RealtimeOfferError('signaling_timeout', 409, 'the connection closed during the ICE restart'));
      const done = (err?: Error, sdp?: string) => {
        clearTimeout(timer);
        this.#peer.off('signal', onSignal);
        this.#peer.off('close', onClose);
        if (err) reject(err);
        else resolve(sdp!);
      };
      this.#peer.on('signal', onSignal);
      this.#peer.once('close', onClose);
      this.#peer.signal({ type: 'offer', sdp: offer });
    });
    this.#offer = offer;
    // simple-peer (no trickle) answers a restart before the new gathering started: the candidates
    // are read from the RTCPeerConnection once gathering completed or ANSWER_GATHER_MS after the
    // first one, as for the first answer (bounded by 2 s).
    const pc = this.#pc;
    const hasCandidate = () => /^a=candidate:/m.test(pc?.localDescription?.sdp ?? '');
    let firstAt: number | undefined;
    for (let waited = 0; pc && pc.iceGatheringState !== 'complete' && waited < 2000; waited += 5) {
      if (firstAt === undefined && hasCandidate()) firstAt = waited;
      if (firstAt !== undefined && waited - firstAt >= ANSWER_GATHER_MS) break;
      await sleep(5);
    }
    const local = pc?.localDescription?.sdp ?? answer;
    const credentials = iceCredentials(local);
    if (!credentials) throw new RealtimeOfferError('signaling_timeout', 504, 'the restart answer has no ICE credentials');
    const [first] = sdpMedia(local);
    const candidates = local.split(/\r?\n/).filter((l) => l.startsWith('a=candidate:')).map((l) => l.slice(2));
    return formatSdpFragment({ ...credentials, media: first ? [{ ...first, candidates: [...new Set(candidates)] }] : [], endOfCandidates: true });
  }

  /** The peer's RTCPeerConnection: simple-peer keeps it private, and trickle ICE needs addIceCandidate and the gathering state. */
  get #pc(): RTCPeerConnection | undefined {
    return (this.#peer as unknown as { _pc?: RTCPeerConnection })._pc;
  }
}
