/**
 * Minimal stand-ins for the browser media objects a VoiceSession touches, so that app tests run in
 * Node, jsdom or happy-dom without WebRTC or a microphone.
 */

/** A fake audio track: `enabled` follows mute(), stop() ends it. */
export interface FakeTrack {
  readonly kind: 'audio';
  readonly id: string;
  enabled: boolean;
  readyState: 'live' | 'ended';
  stop(): void;
  /** A new fake track (what the pre-connect buffer records from). */
  clone(): FakeTrack;
}

let ids = 0;

export function fakeTrack(): FakeTrack {
  return {
    kind: 'audio', id: `scripted-track-${++ids}`, enabled: true, readyState: 'live',
    stop() {
      this.readyState = 'ended';
    },
    clone: () => fakeTrack(),
  };
}

/** A fake MediaStream holding fake tracks (only what VoiceSession uses). */
export function fakeStream(tracks: FakeTrack[] = [fakeTrack()]): MediaStream {
  const list = [...tracks];
  const stream = {
    id: `scripted-stream-${++ids}`,
    active: true,
    getTracks: () => [...list],
    getAudioTracks: () => [...list],
    getVideoTracks: () => [],
    addTrack: (track: FakeTrack) => void list.push(track),
    removeTrack: (track: FakeTrack) => void list.splice(list.indexOf(track), 1),
  };
  return stream as unknown as MediaStream;
}

/** A fake `<audio>` element; set `blocked` to make play() fail as a browser's autoplay policy does. */
export class FakeAudioElement {
  autoplay = false;
  srcObject: MediaStream | null = null;
  blocked = false;
  plays = 0;
  paused = true;

  play(): Promise<void> {
    this.plays++;
    if (this.blocked) {
      return Promise.reject(Object.assign(new Error('play() failed because the user did not interact with the document first'), { name: 'NotAllowedError' }));
    }
    this.paused = false;
    return Promise.resolve();
  }

  pause(): void {
    this.paused = true;
  }
}
