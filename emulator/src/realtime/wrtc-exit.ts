/**
 * Lets a Node process that used @roamhq/wrtc exit by itself, with code 0.
 *
 * Why: when the event loop empties, Node tears the environment down and runs the N-API finalizer
 * of every wrapped object still alive, newest first. Some wrtc objects hold counted references to
 * tracks created after them: an `RTCAudioSource` to every track it created, an `RTCRtpReceiver` to
 * its track. Finalized newest first, the track goes before its holder, and the holder's destructor
 * then unrefs a freed reference: SIGSEGV (node-webrtc#636; still so in @roamhq/wrtc 0.10). No order
 * of stop()/close() calls avoids it: the holders must be gone before the teardown starts. So the
 * owners drop them (FakeMicrophone.close(), a closed emulator connection), and at `beforeExit`,
 * while a registered holder is still alive, this runs a full garbage collection and lets the loop
 * turn once, so the finalizers run while the environment is intact, in the order references allow.
 * Receivers of closed peer connections (the caller's too) go in the same collection.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Collections tried before giving up (a holder still referenced by the app is not ours to free). */
const MAX_ROUNDS = 5;

const holders = new Set<WeakRef<object>>();
// A long-running emulator makes a source per connection: forget each one once it is collected.
const forget = new FinalizationRegistry<WeakRef<object>>((ref) => holders.delete(ref));
let installed = false;
let rounds = 0;
let collect: (() => void) | undefined;

/** Registers a wrtc object that must be finalized before the environment teardown (see above). */
export function releaseBeforeExit(holder: object): void {
  const ref = new WeakRef(holder);
  holders.add(ref);
  forget.register(holder, ref);
  if (installed) return;
  installed = true;
  process.on('beforeExit', onBeforeExit);
}

function onBeforeExit(): void {
  // Done: a collection ran and nothing registered is left; or the app keeps some alive (not ours
  // to free). Either way the process may end now.
  if ((rounds > 0 && holders.size === 0) || rounds >= MAX_ROUNDS) {
    rounds = 0;
    return;
  }
  // At least one collection even when the holders are gone already: receivers are not registered,
  // and a minor collection may have taken the sources but not them.
  rounds++;
  // Collect before looking: a WeakRef read keeps its target alive until the end of the job.
  gc();
  for (const ref of holders) if (ref.deref() === undefined) holders.delete(ref);
  // N-API runs the finalizers from an immediate after the collection: this turn lets it, then
  // 'beforeExit' comes again.
  setImmediate(() => undefined);
}

function gc(): void {
  if (!collect) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (typeof exposed === 'function') collect = exposed;
    else {
      // Without --expose-gc: the flag set now gives new contexts a gc() (as jest's leak detector does).
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    }
  }
  collect();
}
