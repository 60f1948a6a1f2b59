import { VoiceSessionError } from './errors.js';
import { openMicrophone, stopStream, type MicrophoneSource } from './media.js';

/**
 * The user's microphone during one call: opened once, muted by disabling its track (so unmuting is
 * instant), switched to another device in place, stopped at the end. An effect: mute changes are
 * reported, never emitted.
 */
export class Microphone {
  private _stream: MediaStream | undefined;
  private _muted = false;

  constructor(private readonly source: MicrophoneSource | undefined, private readonly report: (muted: boolean) => void) {}

  /** The stream sent to the service; kept across device switches, so a reconnection sends the current track. */
  get stream(): MediaStream | undefined {
    return this._stream;
  }

  get muted(): boolean {
    return this._muted;
  }

  /** Opens it; when `standDown()` says the call is ending meanwhile, releases it again and returns undefined. */
  async open(standDown: () => boolean): Promise<MediaStream | undefined> {
    const stream = await openMicrophone(this.source);
    if (standDown()) {
      stopStream(stream);
      return undefined;
    }
    this._stream = stream;
    this.apply();
    return stream;
  }

  setMuted(muted: boolean): void {
    if (this._muted === muted) return;
    this._muted = muted;
    this.apply();
    this.report(muted);
  }

  /** The user is done (the call is ending): nothing more is sent, whatever `muted` says. */
  silence(): void {
    for (const track of this._stream?.getAudioTracks() ?? []) track.enabled = false;
  }

  /**
   * Opens `deviceId` and puts its track in place of the current one; `replace` hands it to the
   * connection. Throws `not_connected` when `standDown()` says the call ended meanwhile.
   */
  async switchTo(deviceId: string, standDown: () => boolean, replace: (old: MediaStreamTrack, track: MediaStreamTrack, stream: MediaStream) => void): Promise<MediaStream> {
    const current = this._stream!;
    const next = await openMicrophone(this.source, deviceId);
    const track = next.getAudioTracks()[0]!;
    if (this._stream !== current || standDown()) {
      stopStream(next);
      throw new VoiceSessionError('not_connected', 'The call ended while the device was switching');
    }
    track.enabled = !this._muted;
    const old = current.getAudioTracks()[0];
    try {
      if (old) replace(old, track, current);
    } catch (err) {
      stopStream(next);
      throw new VoiceSessionError('microphone_unavailable', 'Could not switch the input device', { cause: err });
    }
    if (old) {
      current.removeTrack(old);
      old.stop();
    }
    current.addTrack(track);
    return current;
  }

  /** Stops every track (the browser's recording indicator goes off). */
  stop(): void {
    stopStream(this._stream);
  }

  private apply(): void {
    for (const track of this._stream?.getAudioTracks() ?? []) track.enabled = !this._muted;
  }
}
