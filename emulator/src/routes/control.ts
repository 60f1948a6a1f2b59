import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import * as z from 'zod/mini';
import { hostCheck, LOOPBACK } from 'kb-voice/relay';
import { validate } from 'kb-voice/schemas';
import { HttpError } from '../http/errors.js';
import { parseJson } from '../http/route.js';
import type { ServerContext } from '../http/server-context.js';
import { ScriptIn, ScriptLimitError } from '../script.js';
import { HistoryIn, HistoryLimitError, seedHistory } from '../fixtures/history.js';

/** PUT /_emulator/faults body (CONTRACT.md). */
export const FaultsIn = z.strictObject({
  warmup: z.optional(z.enum(['ok', 'fail', 'hang'])),
  latencyMs: z.optional(z.number().check(z.gte(0), z.lte(60_000))),
});

/** Whether a socket address is a loopback one (127.0.0.0/8, ::1, or IPv4-mapped 127.x). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === '::1';
}

function remoteAddress(c: Context): string | undefined {
  return (c.env as Partial<HttpBindings> | undefined)?.incoming?.socket?.remoteAddress;
}

/** Content types a cross-site page can send without a CORS preflight ("simple" requests). */
const SIMPLE_TYPES = new Set(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']);

/**
 * The control routes of CONTRACT.md, with no key, answering only (403 otherwise) loopback callers
 * that name a loopback host (or one of `controlHosts`): a web page whose own name resolves to
 * 127.0.0.1 (DNS rebinding) still sends its name. A request from a page of another origin than a
 * loopback or allowed one is refused, and so is a body in a type a cross-site page may send without
 * a preflight (415): the routes take JSON only.
 */
export function registerControlRoutes(app: Hono, sc: ServerContext): void {
  const allowsHost = hostCheck([LOOPBACK, ...sc.controlHosts]);
  app.use('/_emulator/*', async (c, next) => {
    if (!isLoopback(remoteAddress(c))) throw new HttpError(403, 'The emulator control routes answer loopback callers only');
    if (!allowsHost(new URL(c.req.url).host)) throw new HttpError(403, 'The emulator control routes answer loopback host names only');
    const origin = c.req.header('origin');
    let originHost: string | null = null;
    if (origin !== undefined) {
      try {
        originHost = new URL(origin).host;
      } catch {
        // `null` or junk: refused below.
      }
    }
    if (origin !== undefined && !allowsHost(originHost)) throw new HttpError(403, 'The emulator control routes answer pages of loopback origins only');
    if (c.req.header('sec-fetch-site') === 'cross-site') throw new HttpError(403, 'The emulator control routes refuse cross-site requests');
    const type = c.req.header('content-type')?.split(';')[0]!.trim().toLowerCase();
    if (type !== undefined && type !== '' && SIMPLE_TYPES.has(type)) throw new HttpError(415, 'The emulator control routes take application/json bodies only');
    await next();
  });

  app.get('/_emulator/fixtures', (c) => c.json(sc.fixtures));

  app.get('/_emulator/faults', (c) => c.json(sc.faults));

  app.put('/_emulator/faults', async (c) => {
    const raw = parseJson((await c.req.text()) || '{}');
    if (!raw.ok) throw new HttpError(422, raw.detail);
    const parsed = validate(FaultsIn, raw.value, 'body');
    if (!parsed.ok) throw new HttpError(422, parsed.detail);
    if (parsed.value.warmup !== undefined) sc.faults.warmup = parsed.value.warmup;
    if (parsed.value.latencyMs !== undefined) sc.faults.latencyMs = parsed.value.latencyMs;
    return c.json(sc.faults);
  });

  app.get('/_emulator/script', (c) => c.json(sc.script.snapshot()));

  // QA's next spoken words (src/emulator/script.ts): replaces the queue of a session or the emulator-wide one.
  app.put('/_emulator/script', async (c) => {
    const raw = parseJson(await c.req.text());
    if (!raw.ok) throw new HttpError(422, raw.detail);
    const parsed = validate(ScriptIn, raw.value, 'body');
    if (!parsed.ok) throw new HttpError(422, parsed.detail);
    try {
      sc.script.set(parsed.value.session_id, parsed.value.utterances);
    } catch (err) {
      if (err instanceof ScriptLimitError) throw new HttpError(422, [{ loc: ['body', 'session_id'], msg: err.message, type: 'value_error' }]);
      throw err;
    }
    return c.json(sc.script.snapshot());
  });

  // A long past for the seeded robot (fixtures/history.ts), to measure reports and lists against.
  app.post('/_emulator/history', async (c) => {
    const raw = parseJson((await c.req.text()) || '{}');
    if (!raw.ok) throw new HttpError(422, raw.detail);
    const parsed = validate(HistoryIn, raw.value, 'body');
    if (!parsed.ok) throw new HttpError(422, parsed.detail);
    try {
      return c.json(await seedHistory(sc.store, sc.fixtures.robotId, parsed.value, sc.history));
    } catch (err) {
      if (err instanceof HistoryLimitError) throw new HttpError(422, [{ loc: ['body', 'sessions'], msg: err.message, type: 'value_error' }]);
      throw err;
    }
  });

  app.post('/_emulator/reset', async (c) => c.json(await sc.reset()));
}
