// Types for the parts of @echogarden/fvad-wasm (an Emscripten build of libfvad) that vad.ts uses.
declare module '@echogarden/fvad-wasm' {
  export interface FvadModule {
    _fvad_new(): number;
    _fvad_free(inst: number): void;
    _fvad_reset(inst: number): void;
    /** 0..3, higher is more aggressive about reporting non-speech; returns 0 on success. */
    _fvad_set_mode(inst: number, mode: number): number;
    /** 8000, 16000, 32000 or 48000; returns 0 on success. */
    _fvad_set_sample_rate(inst: number, rate: number): number;
    /** Frame of 10, 20 or 30 ms: 1 voiced, 0 unvoiced, -1 invalid frame length. */
    _fvad_process(inst: number, frame: number, length: number): number;
    _malloc(bytes: number): number;
    _free(ptr: number): void;
    /** Re-created when memory grows: always read it from the module. */
    HEAP16: Int16Array;
  }
  const factory: (moduleArg?: Record<string, unknown>) => Promise<FvadModule>;
  export default factory;
}
