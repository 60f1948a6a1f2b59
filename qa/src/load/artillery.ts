import type { Page } from '@playwright/test';
import { Call } from '../call.js';
import { warmRobot } from '../service.js';
import { startHarnessCall } from '../start.js';
import type { CallOptions, CallTurn } from '../types.js';
import { appendCallRecord, type LoadCallRecord } from './call-log.js';
import { callerCpuMicros } from './caller-pool.js';
import { GeneratorCpu, ownCpuMicros } from './generator-cpu.js';
import { processTreeCpuMicros } from './proc-cpu.js';
import { callStartSamples, emitSamples, METRICS, perceivedMs, turnSamples, type MetricSample } from './metrics.js';
import { LoadCallError, NodeCall, type NodeCallTarget } from './node-call.js';

/** Artillery's per-VU event emitter (`events.emit('histogram' | 'counter', name, value)`). */
export interface ArtilleryEvents {
  emit(kind: string, name: string, value?: number): unknown;
}
/** Artillery's VU context: `vars` holds `target`, `$uuid`, the config's `variables`. */
export interface ArtilleryContext {
  vars: Record<string, unknown>;
}

/** Environment variables that override the scenario's settings (e.g. a CI job's ports). */
export const LOAD_ENV = {
  relayUrl: 'KB_VOICE_RELAY_URL',
  emulatorUrl: 'KB_VOICE_EMULATOR_URL',
  aiId: 'KB_VOICE_AI_ID',
  callsFile: 'KB_VOICE_QA_CALLS',
} as const;

/** What a load call runs against, from the VU's vars (config `target` and `variables`) and the environment. */
export interface LoadSettings extends NodeCallTarget {
  /** JSON Lines file every call is appended to (transcripts, audio links) for the report; unset: none. */
  callsFile: string | undefined;
  scenario: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

const robots = new Map<string, Promise<string>>();
/** The emulator's seeded robot (`GET /_emulator/fixtures`), once per emulator. */
function seededRobot(emulatorUrl: string): Promise<string> {
  let found = robots.get(emulatorUrl);
  if (!found) {
    found = fetch(`${emulatorUrl.replace(/\/+$/, '')}/_emulator/fixtures`).then(async (r) => {
      if (!r.ok) throw new Error(`GET /_emulator/fixtures answered ${r.status}`);
      return ((await r.json()) as { robotId: string }).robotId;
    });
    found.catch(() => robots.delete(emulatorUrl));
    robots.set(emulatorUrl, found);
  }
  return found;
}

/**
 * Reads the settings of one VU: `relayUrl` = `$KB_VOICE_RELAY_URL` or the config's `target`;
 * `emulatorUrl` = `$KB_VOICE_EMULATOR_URL` or the variable `emulatorUrl`; `aiId` = `$KB_VOICE_AI_ID`,
 * the variable `aiId`, or the emulator's seeded robot; `userIdentifier` = `<userPrefix>-<$uuid>`
 * (variable `userPrefix`, default `kb-voice-qa-load`): a distinct user per virtual user.
 */
export async function loadSettings(vars: Record<string, unknown>, scenario: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadSettings> {
  const relayUrl = str(env[LOAD_ENV.relayUrl]) ?? str(vars.relayUrl) ?? str(vars.target);
  if (!relayUrl) throw new LoadCallError('voice_config', `kb-voice-qa: no relay URL (config.target, the variable relayUrl or $${LOAD_ENV.relayUrl})`);
  const emulatorUrl = str(env[LOAD_ENV.emulatorUrl]) ?? str(vars.emulatorUrl);
  let aiId = str(env[LOAD_ENV.aiId]) ?? str(vars.aiId);
  if (!aiId && emulatorUrl) {
    try {
      aiId = await seededRobot(emulatorUrl);
    } catch (cause) {
      throw new LoadCallError('voice_config', `kb-voice-qa: no aiId and the emulator at ${emulatorUrl} did not say its robot: ${(cause as Error).message}`, { cause });
    }
  }
  if (!aiId) throw new LoadCallError('voice_config', `kb-voice-qa: no robot (the variable aiId, $${LOAD_ENV.aiId}, or an emulatorUrl to ask)`);
  const uid = str(vars.$uuid) ?? Math.random().toString(36).slice(2);
  const language = str(vars.language);
  const callsFile = str(env[LOAD_ENV.callsFile]) ?? str(vars.callsFile);
  return {
    relayUrl, aiId, scenario, callsFile,
    userIdentifier: `${str(vars.userPrefix) ?? 'kb-voice-qa-load'}-${uid}`,
    ...(emulatorUrl ? { emulatorUrl } : {}),
    ...(language ? { language } : {}),
  };
}

const warmed = new Map<string, Promise<void>>();
/**
 * Warms the robot once per process (E1 through the relay, waiting for its build) before the first
 * call, unless the variable `warmRobot` is false: otherwise the first calls of a run against a fresh
 * service measure the robot's build (5.7 s on the emulator), not the load.
 */
function warmOnce(settings: LoadSettings, vars: Record<string, unknown>): Promise<void> {
  if (vars.warmRobot === false || vars.warmRobot === 'false') return Promise.resolve();
  const key = `${settings.relayUrl} ${settings.aiId}`;
  let done = warmed.get(key);
  if (!done) {
    done = warmRobot(settings.relayUrl, undefined, settings.aiId, settings.language ?? 'en').catch((cause: unknown) => {
      warmed.delete(key);
      throw new LoadCallError('voice_warmup_failed', `kb-voice-qa: warming the robot failed: ${(cause as Error).message}`, { cause });
    });
    warmed.set(key, done);
  }
  return done;
}

/** Every event emitter of this process that runs calls; CPU samples go to the latest one. */
let sink: ArtilleryEvents | undefined;
// The generator's CPU: the whole process tree where /proc has it (Artillery's process, the caller
// processes, the Playwright engine's Chromium), else this process and its caller processes.
const cpu = new GeneratorCpu((samples) => sink && emitSamples(sink, samples), () => processTreeCpuMicros() ?? ownCpuMicros() + callerCpuMicros());

/** The error Artillery counts: its code as the first line (the Playwright engine counts the first line of the message). */
function countedError(error: unknown): Error {
  const code = (error as { code?: unknown }).code;
  const key = typeof code === 'string' && code.startsWith('voice_') ? code : 'voice_scenario_failed';
  const wrapped = new LoadCallError(key as LoadCallError['code'], `${key}\n${(error as Error).message ?? String(error)}`, { cause: error });
  return wrapped;
}

interface CallBookkeeping {
  events: ArtilleryEvents;
  settings: LoadSettings;
  caller: LoadCallRecord['caller'];
}

/** What a running call tells the bookkeeping: its turns so far and, once ended, its MOS. */
interface Progress {
  turns: () => readonly CallTurn[];
  mos: number | null;
}

/** Runs one call's `run` with the metrics, CPU sampling and call record every scenario gets. */
async function measured(book: CallBookkeeping, run: (emit: (samples: MetricSample[]) => void, record: LoadCallRecord, progress: Progress) => Promise<void>): Promise<void> {
  const { events, settings } = book;
  sink = events;
  events.emit('histogram', METRICS.activeCalls, cpu.active + 1);
  cpu.enter();
  const t0 = performance.now();
  const record: LoadCallRecord = {
    kind: 'kb-voice-qa/load-call', version: 1, caller: book.caller, scenario: settings.scenario, userIdentifier: settings.userIdentifier!,
    startedAt: new Date().toISOString(), durationMs: 0, sessionId: null, connectMs: null, status: 'ok', error: null, turns: [], mos: null, audio: [],
  };
  const progress: Progress = { turns: () => [], mos: null };
  const emit = (samples: MetricSample[]) => emitSamples(events, samples);
  emit(callStartSamples());
  let failure: unknown;
  try {
    await run(emit, record, progress);
  } catch (error) {
    failure = error;
  } finally {
    cpu.leave();
  }
  if (typeof progress.mos === 'number') {
    record.mos = progress.mos;
    emit([{ kind: 'histogram', name: METRICS.mos, value: progress.mos }]);
  }
  record.turns = progress.turns().map(({ id, input, question, answer, firstResponseMs, perceivedLatencyMs, interrupted, agentBuildMs }) => ({ id, input, question, answer, firstResponseMs, perceivedLatencyMs, interrupted, agentBuildMs }));
  record.durationMs = Math.round(performance.now() - t0);
  let counted: Error | undefined;
  if (failure !== undefined) {
    counted = countedError(failure);
    record.status = counted.message.split('\n')[0]!;
    record.error = (failure as Error).message ?? String(failure);
    // A call that connected and then failed: the turn it waited for (or checked) failed.
    if (record.connectMs !== null) emit([{ kind: 'counter', name: METRICS.turnsFailed, value: 1 }]);
    emit([{ kind: 'counter', name: METRICS.callsFailed, value: 1 }]);
  }
  if (settings.callsFile) await appendCallRecord(settings.callsFile, record).catch(() => undefined);
  if (counted) throw counted;
}

/** A Node scenario: the conversation of one virtual user. */
export type NodeScenario = (call: NodeCall, vars: Record<string, unknown>) => Promise<void>;

/**
 * A function for an Artillery scenario's `- function: <name>` step (any engine's flow; with no
 * HTTP request the `http` engine just runs it): one Node voice call per virtual user, `script`
 * driving it with `say`, `type`, `expectAnswer`. Emits the `voice.*` metrics; a failure is counted
 * as `errors.voice_<code>` and fails the virtual user.
 */
export function nodeCall(script: NodeScenario, options: { name?: string } = {}) {
  return async function kbVoiceNodeCall(context: ArtilleryContext, events: ArtilleryEvents): Promise<void> {
    const settings = await loadSettings(context.vars, options.name ?? script.name ?? 'node call')
      .then(async (found) => (await warmOnce(found, context.vars), found))
      .catch((e: unknown) => {
        throw countedError(e);
      });
    await measured({ events, settings, caller: 'node' }, async (emit, record, progress) => {
      const call = await NodeCall.start(settings, (turn, clientPerceived) => emit(turnSamples(turn, clientPerceived)));
      // The calls file says what the metric counted: the caller's own perceived latency where the turn has none.
      progress.turns = () => call.turns.map((t) => ({ ...t, perceivedLatencyMs: perceivedMs(t, call.clientPerceivedMs.get(t.id)) }));
      record.connectMs = call.connectMs;
      record.sessionId = call.sessionId ?? null;
      emit([{ kind: 'histogram', name: METRICS.connectMs, value: call.connectMs }]);
      try {
        await script(call, context.vars);
      } catch (error) {
        await call.end({ mode: 'immediate' });
        throw error;
      }
      const report = await call.end();
      progress.mos = report.mos;
      record.audio = report.audio;
    });
  };
}

/** A browser scenario: the conversation of one virtual user, on the Playwright `Call`. */
export type BrowserScenario = (call: Call, vars: Record<string, unknown>, page: Page) => Promise<void>;

/**
 * A flow function for Artillery's Playwright engine (`engine: playwright`, `testFunction: <name>`):
 * `async (page, vuContext, events, test)` opening the kb-voice-qa harness in `page` (same origin as
 * the relay, served with page.route) and handing `script` the same `Call` as the Playwright
 * fixture (`say`, `type`, `nextTurn`, `end`). Emits
 * the `voice.*` metrics as `nodeCall` does.
 */
export function browserCall(script: BrowserScenario, options: { name?: string; call?: CallOptions } = {}) {
  return async function kbVoiceBrowserCall(page: Page, vuContext: ArtilleryContext, events: ArtilleryEvents): Promise<void> {
    const settings = await loadSettings(vuContext.vars, options.name ?? script.name ?? 'browser call')
      .then(async (found) => (await warmOnce(found, vuContext.vars), found))
      .catch((e: unknown) => {
        throw countedError(e);
      });
    await measured({ events, settings, caller: 'browser' }, async (emit, record, progress) => {
      const t0 = performance.now();
      const call = await startHarnessCall(page, settings, { language: settings.language ?? 'en', userIdentifier: settings.userIdentifier, ...options.call }, (p, mirror) =>
        new Call(p, mirror, { testInfo: undefined, number: 1, emulatorUrl: settings.emulatorUrl }),
      ).catch((cause: unknown) => {
        throw new LoadCallError('voice_connect_failed', `kb-voice-qa: the call did not connect: ${(cause as Error).message}`, { cause });
      });
      progress.turns = () => call.turns;
      record.connectMs = Math.round(performance.now() - t0);
      record.sessionId = call.session.sessionId ?? null;
      emit([{ kind: 'histogram', name: METRICS.connectMs, value: record.connectMs }]);
      let emitted = 0;
      const flush = () => {
        for (; emitted < call.turns.length; emitted++) emit(turnSamples(call.turns[emitted]!));
      };
      try {
        await script(call, vuContext.vars, page);
      } catch (error) {
        flush();
        await call.end({ mode: 'immediate' }).catch(() => undefined);
        throw error;
      }
      const report = await call.end();
      flush();
      progress.mos = report.quality?.mos.mean ?? null;
      record.audio = report.audio.map((a) => ({ segment: a.segment_index, url: a.url }));
    });
  };
}
