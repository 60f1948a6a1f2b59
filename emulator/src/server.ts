import { createAdaptorServer } from '@hono/node-server';
import { readdir, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { createAgentBuilder } from './agents.js';
import { createEmulatorApp } from './app.js';
import { createAudioDir } from './audio-dir.js';
import type { Faults } from './context.js';
import { DeletionQueue } from './deletions.js';
import { seedStore, type Fixtures } from './fixtures/seed.js';
import { DEFAULT_MAX_BODY_BYTES } from './http/body-limit.js';
import type { ServerContext } from './http/server-context.js';
import { DEFAULT_URL_TTL_MS, Presigner } from './presign.js';
import { createRealtimeService, type RealtimeServiceOptions } from './realtime/index.js';
import { LabRoute, routeRealtime, type NetworkProfile, type NetworkProfileName } from './lab/index.js';
import { createMemoryStore } from './memory-collection.js';
import type { Store } from './store.js';
import { ScriptQueue } from './script.js';

/** The API key the emulator accepts unless told otherwise (it is local and loopback-bound). */
export const DEFAULT_API_KEY = 'kbv-emulator-key';
/** Agent build time a first realtime task pays without warmup (spec: about 5.7 s). */
export const DEFAULT_AGENT_BUILD_MS = 5700;

/** Options of {@link startEmulator}. */
export interface EmulatorOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to bind; default `127.0.0.1`. */
  host?: string;
  /** Accepted API key; default {@link DEFAULT_API_KEY}. */
  apiKey?: string;
  /** What the first realtime task of a robot pays when no warmup built its agent; default 5700. */
  agentBuildMs?: number;
  /** Lifetime of presigned audio URLs (E14); default 15 minutes. */
  audioUrlTtlMs?: number;
  /** How long files and links take to learn after E4/E5; default 4000 ms. */
  fileLearningMs?: number;
  /** Storage; default a fresh in-memory store, seeded on start and on reset. */
  store?: Store;
  /** Options of the realtime voice service (brain parts, voice, VAD). */
  realtime?: RealtimeServiceOptions;
  /** Largest request body accepted, in bytes (413 `{ detail }` above); default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Most realtime sessions connected or being answered at once (503 with `Retry-After` above);
   * default 64.
   */
  maxRealtimeSessions?: number;
  /**
   * How long after its last connection closed a realtime session can be continued by an offer
   * naming its `session_id` (a client's `resume: true` after a page reload); later: 409. Default
   * 120000 ms.
   */
  resumeWindowMs?: number;
  /**
   * Puts every realtime call's media behind the network lab (kb-voice-emulator/lab): a profile name
   * such as `'4g'`, `{ up, down }` conditions, or a {@link LabRoute} you control. Default: direct.
   */
  network?: NetworkProfileName | NetworkProfile | LabRoute;
  /**
   * Host names (any port) besides the loopback ones (`localhost`, `*.localhost`, `127.0.0.0/8`,
   * `[::1]`) that the `/_emulator/*` control routes answer to, e.g. a dev proxy's name. Default none:
   * the DNS-rebinding defence of the routes that hand out the API key.
   */
  controlHosts?: readonly string[];
}

/** A running emulator. */
export interface Emulator {
  /** Base URL, e.g. `http://127.0.0.1:8787` (no trailing slash). */
  url: string;
  apiKey: string;
  /** Ids of the seeded robot and dataset, and the key. */
  fixtures: Fixtures;
  /** Stops the server, ends realtime sessions and removes the recorded-audio folder. Idempotent. */
  close(): Promise<void>;
  /** Shared state of the routes (store, faults, agents…), for tests and embedding. */
  readonly context: ServerContext;
  /** The Hono application, for in-process requests (`app.request(...)`). */
  readonly app: Hono;
  /** The network lab route of the `network` option (outages, path switches, counters); undefined without it. */
  readonly network: LabRoute | undefined;
}

function formatHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts the local service emulator: the HTTP API of E1–E20 with realtime signaling, seeded with a
 * robot, its dataset and past sessions. Resolves once it accepts requests.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const host = options.host ?? '127.0.0.1';
  const apiKey = options.apiKey ?? DEFAULT_API_KEY;
  const agentBuildMs = options.agentBuildMs ?? DEFAULT_AGENT_BUILD_MS;
  if (!Number.isFinite(agentBuildMs) || agentBuildMs < 0) throw new RangeError(`agentBuildMs must be >= 0, got ${agentBuildMs}`);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1) throw new RangeError(`maxBodyBytes must be an integer >= 1, got ${maxBodyBytes}`);
  const maxSessions = options.maxRealtimeSessions ?? options.realtime?.maxSessions;
  const store = options.store ?? createMemoryStore();
  // Named after this process: a later start removes it if this process dies without close().
  const audioDir = await createAudioDir();
  const faults: Faults = { warmup: 'ok', latencyMs: 0 };
  const agents = createAgentBuilder({ agentBuildMs, faults: () => faults });
  let baseUrl = '';

  const sc = {
    store, agents, faults, apiKey, agentBuildMs, audioDir,
    script: new ScriptQueue(),
    baseUrl: () => baseUrl,
    presigner: new Presigner(options.audioUrlTtlMs ?? DEFAULT_URL_TTL_MS),
    deletions: new DeletionQueue(store),
    fileLearningMs: options.fileLearningMs ?? 4000,
    maxBodyBytes,
    history: { turns: 0 },
    controlHosts: options.controlHosts ?? [],
  } as ServerContext;
  const clearStore = async () => {
    for (const c of Object.values(store) as { clear(): void }[]) c.clear();
    for (const name of await readdir(audioDir)) await rm(join(audioDir, name), { recursive: true, force: true });
  };
  const network = options.network === undefined || options.network instanceof LabRoute ? options.network : new LabRoute({ profile: options.network });
  try {
    sc.fixtures = await seedStore(store, { apiKey, audioDir });
    sc.realtime = createRealtimeService(sc, { ...options.realtime, ...(maxSessions !== undefined ? { maxSessions } : {}), ...(options.resumeWindowMs !== undefined ? { resumeWindowMs: options.resumeWindowMs } : {}) });
    if (network) sc.realtime = routeRealtime(sc.realtime, network);
  } catch (error) {
    await rm(audioDir, { recursive: true, force: true });
    throw error;
  }
  sc.reset = async () => {
    for (const s of store.sessions.all()) sc.realtime.endSession(s.id);
    await sc.deletions.idle();
    await clearStore();
    agents.reset();
    Object.assign(faults, { warmup: 'ok', latencyMs: 0 } satisfies Faults);
    sc.script.clear();
    sc.history.turns = 0;
    sc.fixtures = await seedStore(store, { apiKey, audioDir });
    return sc.fixtures;
  };

  const app = createEmulatorApp(sc);
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host }) as Server;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    agents.close();
    await sc.realtime.close();
    network?.close();
    await rm(audioDir, { recursive: true, force: true });
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://${formatHost(host)}:${port}`;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // Hanging warmups and pending builds answer first, so their requests end cleanly.
      agents.close();
      await sc.realtime.close();
      network?.close();
      await sc.deletions.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Requests still open (a client holding a stream) are cut after a grace period.
        setTimeout(() => server.closeAllConnections(), 200).unref();
      });
      await rm(audioDir, { recursive: true, force: true });
    })());

  const emulator: Emulator = { url: baseUrl, apiKey, fixtures: sc.fixtures, close, context: sc, app, network };
  Object.defineProperty(emulator, 'fixtures', { get: () => sc.fixtures, enumerable: true });
  Object.defineProperty(emulator, 'context', { value: sc, enumerable: false });
  Object.defineProperty(emulator, 'app', { value: app, enumerable: false });
  return emulator;
}
