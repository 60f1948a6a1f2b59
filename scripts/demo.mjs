#!/usr/bin/env node
// `npm run demo`: emulator + relay + QA page on loopback; Ctrl-C stops all of them.
//   node scripts/demo.mjs [--port 5173] [--emulator-port 8787] [--relay-port 8788] [--agent-build-ms N] [--lang ja] [--allow-host NAME]...
// The servers answer loopback host names only (DNS-rebinding defence) unless --allow-host names another.
// Env equivalents: DEMO_PORT, DEMO_EMULATOR_PORT, DEMO_RELAY_PORT, DEMO_AGENT_BUILD_MS, DEMO_LANG.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { buildIsCurrent } from './build-inputs.mjs';

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    'emulator-port': { type: 'string' },
    'relay-port': { type: 'string' },
    'agent-build-ms': { type: 'string' },
    lang: { type: 'string' },
    'allow-host': { type: 'string', multiple: true },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log('usage: npm run demo -- [--port 5173] [--emulator-port 8787] [--relay-port 8788] [--agent-build-ms 5700] [--lang ja] [--allow-host NAME]...');
  process.exit(0);
}

function int(name, flag, env) {
  const raw = flag ?? process.env[env];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535 * 1000) {
    console.error(`kb-voice demo: --${name} must be a non-negative integer, got "${raw}"`);
    process.exit(2);
  }
  return n;
}

// A fresh clone's first demo builds (there is no install-time build); later ones reuse dist/ while it
// is the build of the current sources.
if (buildIsCurrent()) console.log('kb-voice demo: dist/ is up to date, not rebuilt');
else {
  console.log('kb-voice demo: building (dist/ is missing or older than the sources)…');
  const build = spawnSync(process.execPath, [new URL('./build.mjs', import.meta.url).pathname], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
// Loaded after the build: the stack imports the built packages.
const { startDemoStack } = await import('./demo-stack.mjs');

let stack;
try {
  stack = await startDemoStack({
    pagePort: int('port', values.port, 'DEMO_PORT'),
    emulatorPort: int('emulator-port', values['emulator-port'], 'DEMO_EMULATOR_PORT'),
    relayPort: int('relay-port', values['relay-port'], 'DEMO_RELAY_PORT'),
    agentBuildMs: int('agent-build-ms', values['agent-build-ms'], 'DEMO_AGENT_BUILD_MS'),
    language: values.lang ?? process.env.DEMO_LANG ?? 'ja',
    allowedHosts: values['allow-host'] ?? [],
    quiet: true,
  });
} catch (error) {
  console.error(`kb-voice demo: could not start: ${error instanceof Error ? error.message : error}`);
  if (error?.code === 'EADDRINUSE') console.error('A port is taken (is another demo running?). Pick others with --emulator-port/--relay-port.');
  if (error?.code === 'ERR_MODULE_NOT_FOUND') console.error('Build the package first: npm run build');
  process.exit(1);
}

console.log(`emulator: ${stack.emulator.url} (robot ${stack.emulator.fixtures.robotId})`);
console.log(`relay:    ${stack.relayUrl}/api/voice (role admin, local QA only)`);
console.log(`kb-voice demo: ${stack.pageUrl}`);
console.log('Press Ctrl-C to stop.');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (stopping) process.exit(130); // second Ctrl-C: do not wait
    stopping = true;
    console.log('\nkb-voice demo: stopping…');
    stack.close().then(() => process.exit(0), () => process.exit(1));
  });
}
