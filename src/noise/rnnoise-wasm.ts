import { FRAME_SAMPLES, type Denoise } from './frame-processor.js';

/** The exports kb-voice uses of `@sapphi-red/web-noise-suppressor`'s rnnoise build (plain emscripten, no JS glue needed). */
interface RnnoiseExports {
  memory: WebAssembly.Memory;
  __wasm_call_ctors(): void;
  rnnoise_create(model: number): number;
  rnnoise_destroy(state: number): void;
  rnnoise_process_frame(state: number, out: number, input: number): number;
  malloc(bytes: number): number;
  free(pointer: number): void;
}

/** rnnoise reads and writes 16-bit sample values as floats. */
const SCALE = 32768;

/** One rnnoise state: {@link Denoise} for the frame processor, `reset()` (a fresh state) and `destroy()`. */
export interface Rnnoise {
  denoise: Denoise;
  reset(): void;
  destroy(): void;
}

/**
 * Instantiates rnnoise from its WebAssembly binary (bytes or a compiled module) with the three
 * imports its emscripten build needs; runs in a page, a worklet or Node.
 */
export async function instantiateRnnoise(binary: BufferSource | WebAssembly.Module): Promise<Rnnoise> {
  let heap: Uint8Array | undefined;
  let memory: WebAssembly.Memory | undefined;
  const bytes = () => {
    if (!heap || heap.buffer !== memory!.buffer) heap = new Uint8Array(memory!.buffer);
    return heap;
  };
  const imports = {
    env: {
      emscripten_memcpy_big: (dest: number, src: number, n: number) => void bytes().copyWithin(dest, src, src + n),
      emscripten_resize_heap: (size: number) => {
        try {
          memory!.grow(Math.ceil((size - memory!.buffer.byteLength) / 65536));
          return 1;
        } catch {
          return 0;
        }
      },
      __assert_fail: () => {
        throw new Error('rnnoise: assertion failed');
      },
    },
  };
  const instance = binary instanceof WebAssembly.Module
    ? await WebAssembly.instantiate(binary, imports)
    : (await WebAssembly.instantiate(binary, imports)).instance;
  const e = instance.exports as unknown as RnnoiseExports;
  memory = e.memory;
  e.__wasm_call_ctors();
  let state = e.rnnoise_create(0);
  const input = e.malloc(FRAME_SAMPLES * 4);
  const output = e.malloc(FRAME_SAMPLES * 4);
  let destroyed = false;
  return {
    denoise(frame) {
      if (destroyed) return 0;
      const buffer = memory!.buffer;
      const into = new Float32Array(buffer, input, FRAME_SAMPLES);
      for (let i = 0; i < FRAME_SAMPLES; i++) into[i] = frame[i]! * SCALE;
      const probability = e.rnnoise_process_frame(state, output, input);
      const from = new Float32Array(memory!.buffer, output, FRAME_SAMPLES);
      for (let i = 0; i < FRAME_SAMPLES; i++) frame[i] = from[i]! / SCALE;
      return probability;
    },
    reset() {
      if (destroyed) return;
      e.rnnoise_destroy(state);
      state = e.rnnoise_create(0);
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      e.rnnoise_destroy(state);
      e.free(input);
      e.free(output);
    },
  };
}
