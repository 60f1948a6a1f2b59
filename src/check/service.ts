import type { Clock } from '../clock.js';
import type { VoiceSessionApi } from '../client/report.js';
import type { ServiceCheck } from './types.js';

/** A warmup slower than this (ms) is graded `warning`: calls will start slowly. */
export const SLOW_SERVICE_MS = 3000;

const part = (grade: ServiceCheck['grade'], code: string, message: string, latencyMs: number | null = null): ServiceCheck => ({ grade, code, message, latencyMs });

/**
 * Reaches the relay and the service with E1 (warmup): it opens no session, so nothing is billed,
 * and it is what a call does first anyway (the robot is warm for the call that follows). The
 * status of a failure says where the path broke: no answer at all (the relay), 401/403 (the
 * relay's authorize hook or origins), 404 (the robot), 502/504 (the service behind the relay).
 */
export async function checkService(api: VoiceSessionApi, aiId: string, clock: Clock): Promise<ServiceCheck> {
  const started = clock.now();
  try {
    const out = await api.realtime.warmup(aiId, {});
    const latencyMs = Math.max(0, clock.now() - started);
    if (!out.success) return part('warning', 'warmup_failed', 'The service answered but could not prepare the assistant: the first answer may be slow.', latencyMs);
    if (latencyMs > SLOW_SERVICE_MS) return part('warning', 'service_slow', `The service answered slowly (${latencyMs} ms): calls may take long to start.`, latencyMs);
    return part('good', 'service_ok', `The relay and the service answered in ${latencyMs} ms.`, latencyMs);
  } catch (err) {
    const status = (err as { status?: unknown } | null)?.status;
    if (typeof status !== 'number') return part('bad', 'relay_unreachable', 'The relay could not be reached: check its URL, that it is running, and that this page may call it (CORS, Content-Security-Policy connect-src).');
    if (status === 401 || status === 403) return part('bad', 'relay_refused', `The relay refused this page (${status}): check its authorize hook, allowed origins and robots.`);
    if (status === 404) return part('bad', 'robot_not_found', 'The relay does not know this assistant (404): check the ai-id and the relay\'s prefix.');
    if (status === 429) return part('warning', 'rate_limited', 'The relay is limiting requests (429): try again in a moment.');
    if (status >= 500) return part('bad', 'service_unreachable', `The relay answered but the service behind it did not (${status}): the service is down or the relay cannot reach it.`);
    return part('bad', 'service_error', `The service refused the check (${status}).`);
  }
}
