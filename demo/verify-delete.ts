import type { createApiClient } from 'kb-voice';

type Api = ReturnType<typeof createApiClient>;

/**
 * After E15 (which deletes in the background), polls until the session is really gone: E19 lists no
 * message of it and E13 no longer lists it. Gives up after `timeoutMs` and says what remains.
 */
export async function verifyDeleted(
  api: Api,
  aiId: string,
  sessionId: string,
  timeoutMs = 10_000,
): Promise<{ gone: boolean; text: string }> {
  const deadline = Date.now() + timeoutMs;
  let messages = -1;
  let listed = true;
  for (;;) {
    messages = await countMessages(api, aiId, sessionId);
    const usage = await api.realtime.usage(aiId);
    listed = usage.sessions.some((s) => s.session_id === sessionId);
    if (messages === 0 && !listed) {
      return { gone: true, text: `Session ${sessionId} deleted: it has no messages any more and usage no longer lists it.` };
    }
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 400));
  }
  return {
    gone: false,
    text: `Session ${sessionId} still present after ${timeoutMs / 1000} s: ${messages} message(s), ${listed ? 'still' : 'not'} listed in usage.`,
  };
}

async function countMessages(api: Api, aiId: string, sessionId: string): Promise<number> {
  try {
    const page = await api.sessions.messages(aiId, { session_id: sessionId, size: 1 });
    // A service that does not count (total: null) still shows whether anything is left.
    return page.total ?? page.items.length;
  } catch (error) {
    // An unknown session is a 404: nothing left of it.
    if ((error as { status?: number }).status === 404) return 0;
    throw error;
  }
}
