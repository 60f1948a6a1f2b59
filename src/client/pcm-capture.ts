import type { PcmCapture } from './pre-connect-options.js';

/**
 * Rate of the pre-connect audio: 8 kHz, telephone speech, half the data of 16 kHz (it crosses the
 * data channel, possibly on a slow uplink: pre-connect.ts); voice-activity detection (libfvad works
 * at 8 kHz inside) and recognizers take it.
 */
export const CAPTURE_RATE = 8000;

/**
 * The pre-connect buffer's default capture in browsers: a Web Audio graph reads the track and a
 * ScriptProcessorNode (available everywhere, no module to fetch, so no CSP entry; deprecated but
 * kept by every engine) averages its blocks down to 8 kHz mono PCM16. Its output is silent. `shared`
 * gives the context to record through (it stays open after); without it the capture makes its own
 * and closes it. Where there is no AudioContext (Node) there is no default: undefined.
 */
export function webAudioCapture(shared?: () => AudioContext): PcmCapture | undefined {
  const Context = globalThis.AudioContext;
  if (!Context) return undefined;
  return (track, onPcm) => {
    // The call's context (the meters' one, made while the microphone opened) when there is one: a
    // second context would cost its creation again on the way to the offer.
    const context = shared?.() ?? new Context();
    const source = context.createMediaStreamSource(new MediaStream([track]));
    const node = context.createScriptProcessor(2048, 1, 1);
    const ratio = context.sampleRate / CAPTURE_RATE;
    let at = 0; // read position within the block
    node.onaudioprocess = (event) => {
      const input = event.inputBuffer.getChannelData(0);
      const out = new Int16Array(Math.ceil(input.length / ratio) + 1);
      let n = 0;
      for (; at + ratio <= input.length; at += ratio) {
        let sum = 0;
        const end = Math.floor(at + ratio);
        for (let i = Math.floor(at); i < end; i++) sum += input[i]!;
        out[n++] = Math.max(-32768, Math.min(32767, Math.round((sum / (end - Math.floor(at))) * 32767)));
      }
      at = Math.max(0, at - input.length); // the straddling sample's fraction is dropped (under one input sample per block)
      onPcm(out.subarray(0, n), CAPTURE_RATE);
    };
    source.connect(node);
    node.connect(context.destination); // a ScriptProcessorNode runs only when connected
    context.resume().catch(() => undefined);
    return () => {
      node.onaudioprocess = null;
      source.disconnect();
      node.disconnect();
      if (!shared) context.close().catch(() => undefined);
    };
  };
}
