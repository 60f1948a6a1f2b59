/**
 * Types of `checkCall()` (kb-voice/check, CONTRACT.md "First words and the pre-call check"). A leaf
 * module: each part's checker and the UI import the result shape without importing each other.
 */

/** `skipped`: the part was not run (not asked for, no microphone, cancelled before it). */
export type CheckGrade = 'good' | 'warning' | 'bad' | 'skipped';

/** One part's verdict: a grade, a stable `code` for programs and a sentence (English) of what to do. */
export interface CheckPart {
  readonly grade: CheckGrade;
  /** Stable, machine-readable: see docs/check.md's table (e.g. `microphone_denied`, `needs_turn_tcp`). */
  readonly code: string;
  /** What was found and what to do about it, for people. The widget shows its own translated text by `code`. */
  readonly message: string;
}

/** The microphone part, with the loudest level heard (0..1 on the meters' -60..0 dB scale; null when not measured). */
export interface MicrophoneCheck extends CheckPart {
  readonly peakLevel: number | null;
}

/** ICE candidates gathered, by kind; `relayTcp` counts TURN candidates whose way to the TURN server is TCP (or TLS). */
export interface CandidateCounts {
  readonly host: number;
  readonly srflx: number;
  readonly relay: number;
  readonly relayTcp: number;
  /** Candidates of any kind whose transport is UDP. */
  readonly udp: number;
}

/** The network part: what gathering found. */
export interface NetworkCheck extends CheckPart {
  readonly candidates: CandidateCounts;
  /** Whether UDP works from here: `true` (seen), `false` (blocked), `null` (unknown: no STUN/TURN to ask and no test connection). */
  readonly udp: boolean | null;
}

/** The service part: the relay and the service answered (E1 warmup, which opens no session). */
export interface ServiceCheck extends CheckPart {
  /** How long the warmup request took (ms), null when it failed. */
  readonly latencyMs: number | null;
}

/** The optional test connection: a short real call and what the quality sampler measured over it. */
export interface ConnectionCheck extends CheckPart {
  readonly rttMs: number | null;
  readonly jitterMs: number | null;
  readonly lossPct: number | null;
  readonly mos: number | null;
  /** The transport of the pair the call used (`udp`, `tcp`), and whether it went through TURN. */
  readonly path: { readonly protocol: string | null; readonly relayed: boolean } | null;
}

/** What `checkCall()` resolves to. `overall` is the worst grade of the parts that ran. */
export interface CallCheckResult {
  readonly overall: Exclude<CheckGrade, 'skipped'>;
  readonly microphone: MicrophoneCheck;
  readonly network: NetworkCheck;
  readonly service: ServiceCheck;
  /** Present when a test connection was asked for (`connection: true`). */
  readonly connection?: ConnectionCheck;
  /** How long the whole check took (ms). */
  readonly durationMs: number;
  /** True when `signal` aborted or the time limit cut the check short (the parts not finished say `skipped`/`check_timeout`). */
  readonly cancelled: boolean;
}

const ORDER: Record<CheckGrade, number> = { skipped: -1, good: 0, warning: 1, bad: 2 };

/** The worst grade among parts that ran; `bad` when none ran (nothing was checked, nothing can be promised). */
export function worstGrade(parts: readonly CheckPart[]): Exclude<CheckGrade, 'skipped'> {
  let worst: CheckGrade = 'skipped';
  for (const part of parts) if (ORDER[part.grade] > ORDER[worst]) worst = part.grade;
  return worst === 'skipped' ? 'bad' : worst;
}
