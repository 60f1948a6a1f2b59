/**
 * The service side of the matrix, from the installed tarballs as a user runs them: the emulator
 * (`kb-voice-emulator`, package kb-voice-emulator) and the relay command (`kb-voice relay`, package
 * kb-voice), each its own process, on free loopback ports. The relay lets the apps' origins call it (CORS).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freeLoopbackPort } from '../helpers/free-port.js';

export interface ServiceStack {
  /** The relay's base URL (`http://127.0.0.1:PORT/api/voice`) and origin (for the CSP's connect-src). */
  relayUrl: string;
  relayOrigin: string;
  robotId: string;
  close(): Promise<void>;
}

/** A free TCP port of 127.0.0.1 (for servers whose origin the relay must know before they start). */
export const freePort = freeLoopbackPort;

/** Starts `command` and resolves with the child and its stdout once `ready` matches it. */
export function startUntil(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpMatchArray; output: () => string }> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString().replace(/\u001b\[[0-9;]*m/g, ''); // tools colour their banners even into a pipe
      const match = out.match(ready);
      if (match) resolve({ child, match, output: () => out });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}) before it was ready:\n${out}`)));
  });
}

export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** The emulator and the relay, with the relay open to `origins`. */
export async function startServices(appsDir: string, origins: string[]): Promise<ServiceStack> {
  const bin = (name: string) => join(appsDir, 'node_modules', '.bin', name);
  const apiKey = 'apps-matrix-key';
  const emulator = await startUntil(bin('kb-voice-emulator'), ['--port', '0', '--api-key', apiKey, '--agent-build-ms', '300'], {}, /listening on (http:\/\/\S+)\n[\s\S]*robot:\s+(\S+)\n/);
  try {
    const relay = await startUntil(
      bin('kb-voice'),
      ['relay', '--upstream', emulator.match[1]!, '--port', '0', ...origins.flatMap((origin) => ['--allow-origin', origin])],
      { KB_VOICE_API_KEY: apiKey },
      /listening on (http:\/\/\S+) \(prefix (\S+),/,
    );
    const relayOrigin = new URL(relay.match[1]!).origin;
    return {
      relayUrl: `${relayOrigin}${relay.match[2]}`,
      relayOrigin,
      robotId: emulator.match[2]!,
      close: async () => {
        await stop(relay.child);
        await stop(emulator.child);
      },
    };
  } catch (error) {
    await stop(emulator.child);
    throw error;
  }
}
