import { VoiceSessionError } from './errors.js';
import { voiceProcessing } from './noise/suppression.js';

/**
 * Where the microphone comes from: constraints for `getUserMedia` (browsers), or a function that
 * returns a stream (Node tests, custom sources). The function gets the device id on device switches.
 */
export type MicrophoneSource = MediaTrackConstraints | ((deviceId?: string) => Promise<MediaStream>);

/** Voice processing of the default `noiseSuppression: 'browser'`: without it the assistant hears itself and the room. */
export const VOICE_PROCESSING: Readonly<MediaTrackConstraints> = voiceProcessing('browser');

/**
 * The constraints start() asks for: voice processing (`processing`: the option `noiseSuppression`'s,
 * default all on), then the caller's constraints, then the device.
 */
export function microphoneConstraints(constraints: MediaTrackConstraints = {}, deviceId?: string, processing: MediaTrackConstraints = VOICE_PROCESSING): MediaTrackConstraints {
  return { ...processing, ...constraints, ...(deviceId ? { deviceId: { exact: deviceId } } : {}) };
}

/** Opens the microphone and maps every failure to `microphone_denied` or `microphone_unavailable`. */
export async function openMicrophone(source: MicrophoneSource | undefined, deviceId?: string, processing?: MediaTrackConstraints): Promise<MediaStream> {
  let stream: MediaStream;
  try {
    if (typeof source === 'function') {
      stream = await source(deviceId);
    } else {
      const media = typeof navigator === 'undefined' ? undefined : navigator.mediaDevices;
      if (!media?.getUserMedia) {
        throw new VoiceSessionError('microphone_unavailable', 'This environment has no navigator.mediaDevices.getUserMedia (pass `microphone` as a function outside browsers; browsers require a secure context)');
      }
      stream = await media.getUserMedia({ audio: microphoneConstraints(source, deviceId, processing), video: false });
    }
  } catch (err) {
    if (err instanceof VoiceSessionError) throw err;
    const name = (err as { name?: string } | null)?.name;
    if (name === 'NotAllowedError' || name === 'SecurityError' || name === 'PermissionDeniedError') {
      throw new VoiceSessionError('microphone_denied', 'Microphone access was denied', { cause: err });
    }
    throw new VoiceSessionError('microphone_unavailable', `Microphone could not be opened${name ? ` (${name})` : ''}`, { cause: err });
  }
  if (stream.getAudioTracks().length === 0) {
    stopStream(stream);
    throw new VoiceSessionError('microphone_unavailable', 'The microphone stream has no audio track');
  }
  return stream;
}

/** Stops every track: this is what turns the browser's "recording" indicator off. */
export function stopStream(stream: MediaStream | undefined): void {
  for (const track of stream?.getTracks() ?? []) track.stop();
}
