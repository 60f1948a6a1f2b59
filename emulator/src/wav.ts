/**
 * Minimal RIFF/WAVE helpers for 16-bit PCM, used to store recorded realtime audio and to read test
 * fixtures. Only PCM16 (format tag 1, or WAVE_FORMAT_EXTENSIBLE carrying PCM) is supported: that is
 * all the emulator writes, and anything else is rejected with a clear error instead of misread.
 */

/** Thrown when bytes are not a PCM16 WAV file this module can read. */
export class WavFormatError extends Error {
  readonly code = 'wav_format';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WavFormatError';
  }
}

/** Decoded WAV: interleaved samples when `channels` > 1. */
export interface DecodedWav {
  samples: Int16Array;
  sampleRate: number;
  channels: number;
}

/**
 * Encodes PCM16 samples as a WAV file.
 * @param samples interleaved samples (mono unless `channels` says otherwise)
 * @param sampleRate samples per second per channel
 * @param channels channel count, default 1
 */
export function encodeWav(samples: Int16Array, sampleRate: number, channels = 1): Uint8Array {
  if (!Number.isInteger(sampleRate) || sampleRate <= 0) throw new RangeError(`invalid sample rate ${sampleRate}`);
  if (!Number.isInteger(channels) || channels <= 0) throw new RangeError(`invalid channel count ${channels}`);
  const dataBytes = samples.length * 2;
  const out = new Uint8Array(44 + dataBytes);
  const view = new DataView(out.buffer);
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) out[offset + i] = text.charCodeAt(i);
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * channels * 2, true);
  view.setUint16(32, channels * 2, true);
  view.setUint16(34, 16, true);
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  // Little-endian sample writes keep the output independent of the host byte order.
  for (let i = 0; i < samples.length; i++) view.setInt16(44 + i * 2, samples[i]!, true);
  return out;
}

/** Decodes a PCM16 WAV file (any chunk order; unknown chunks are skipped). */
export function decodeWav(bytes: Uint8Array): DecodedWav {
  if (bytes.length < 12) throw new WavFormatError('file too short for a WAV header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (offset: number) => String.fromCharCode(bytes[offset]!, bytes[offset + 1]!, bytes[offset + 2]!, bytes[offset + 3]!);
  if (tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new WavFormatError('not a RIFF/WAVE file');
  let fmt: { format: number; channels: number; sampleRate: number; bits: number } | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = tag(offset);
    let size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (size < 16) throw new WavFormatError('fmt chunk too short');
      let format = view.getUint16(body, true);
      // WAVE_FORMAT_EXTENSIBLE: the real format is the first 2 bytes of the sub-format GUID.
      if (format === 0xfffe && size >= 40) format = view.getUint16(body + 24, true);
      fmt = {
        format,
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        bits: view.getUint16(body + 14, true),
      };
    } else if (id === 'data') {
      if (!fmt) throw new WavFormatError('data chunk before fmt chunk');
      if (fmt.format !== 1 || fmt.bits !== 16) {
        throw new WavFormatError(`unsupported WAV encoding (format ${fmt.format}, ${fmt.bits} bits); only PCM16 is supported`);
      }
      if (fmt.channels < 1 || fmt.sampleRate < 1) throw new WavFormatError('invalid channel count or sample rate');
      // Streamed WAVs may carry a placeholder size (0 or 0xffffffff): take what is there.
      if (size === 0 || body + size > bytes.length) size = bytes.length - body;
      const count = Math.floor(size / 2);
      const samples = new Int16Array(count);
      for (let i = 0; i < count; i++) samples[i] = view.getInt16(body + i * 2, true);
      return { samples, sampleRate: fmt.sampleRate, channels: fmt.channels };
    }
    offset = body + size + (size & 1); // chunks are word-aligned
  }
  throw new WavFormatError('no data chunk');
}

/** Duration in ms of `sampleCount` interleaved samples. */
export function wavDurationMs(sampleCount: number, sampleRate: number, channels = 1): number {
  return (sampleCount / channels / sampleRate) * 1000;
}
