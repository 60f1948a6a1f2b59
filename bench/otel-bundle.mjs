#!/usr/bin/env node
// Benchmark: what `kb-voice/otel` adds to an app's browser bundle (esbuild: bundle, minify,
// platform browser, esm), for a consumer importing voiceTelemetry: without `@opentelemetry/api`
// (the app's own peer dependency, already in its bundle when it uses OpenTelemetry) and with it;
// and that the core entry `kb-voice` carries none of it.
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { distDir, ensureBuilt, runBenchmark } from './lib/common.mjs';

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

async function size(contents, external) {
  const out = await esbuild.build({
    stdin: { contents, resolveDir: distDir, loader: 'js', sourcefile: 'consumer.js' },
    bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent', external,
    alias: { 'kb-voice/otel': path.join(distDir, 'otel/index.js'), 'kb-voice': path.join(distDir, 'index.js') },
  });
  const code = out.outputFiles[0].text;
  return { code, min: Buffer.byteLength(code), gzip: gzipSync(code, { level: 9 }).length };
}

export async function main() {
  ensureBuilt();
  const consumer = "import { voiceTelemetry } from 'kb-voice/otel'; console.log(voiceTelemetry);";
  const alone = await size(consumer, ['@opentelemetry/api', 'kb-voice']);
  const withApi = await size(consumer, ['kb-voice']);
  const core = await size("import { VoiceSession, createApiClient } from 'kb-voice'; console.log(VoiceSession, createApiClient);", []);
  const coreClean = !/opentelemetry|realtime_inference|invoke_agent/.test(core.code);
  return {
    name: 'otel-bundle',
    title: 'kb-voice/otel bundle size (esbuild min+gzip)',
    ok: true,
    figures: [
      { label: 'kb-voice/otel alone (voiceTelemetry; @opentelemetry/api and kb-voice external), min+gzip', value: `${kb(alone.gzip)} (min ${kb(alone.min)})` },
      { label: 'kb-voice/otel with @opentelemetry/api, min+gzip', value: `${kb(withApi.gzip)} (min ${kb(withApi.min)})` },
      { label: 'kb-voice core entry carries nothing of kb-voice/otel', value: coreClean ? 'none' : 'found', target: 'none', met: coreClean },
    ],
    details: { alone: { min: alone.min, gzip: alone.gzip }, withApi: { min: withApi.min, gzip: withApi.gzip }, core: { min: core.min, gzip: core.gzip } },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runBenchmark('otel-bundle', 'kb-voice/otel bundle size', main);
}
