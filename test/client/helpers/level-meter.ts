import wrtc from '@roamhq/wrtc';
import type { LevelMeterFactory } from '../../../src/client/index.js';
import { rms, rmsToLevel } from '../../../src/client/levels.js';

/** A Node level meter (browsers use Web Audio): an RTCAudioSink on the stream's audio track. */
export const sinkLevelMeter: LevelMeterFactory = (stream) => {
  const track = stream.getAudioTracks()[0];
  if (!track) return undefined;
  const sink = new wrtc.nonstandard.RTCAudioSink(track);
  let level = 0;
  sink.ondata = (data: { samples: Int16Array }) => {
    const floats = Array.from(data.samples, (s) => s / 32768);
    level = rmsToLevel(rms(floats));
  };
  return { read: () => level, close: () => sink.stop() };
};
