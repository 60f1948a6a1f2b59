#!/usr/bin/env node
/**
 * `kb-voice-qa report <artillery.json> [--calls calls.jsonl] [--output folder] [--worst N]`:
 * the load report of an Artillery run (docs/qa.md "Load tests").
 */
import { parseArgs } from 'node:util';
import { saturationSentence, writeLoadReport } from './reporter/load-report.js';

const USAGE = 'usage: kb-voice-qa report <artillery-output.json> [--calls calls.jsonl] [--output voice-load-report] [--worst 10]';

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === undefined) {
    console.log(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command !== 'report') {
    console.error(`kb-voice-qa: unknown command "${command}"\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { calls: { type: 'string' }, output: { type: 'string', short: 'o' }, worst: { type: 'string' } },
  });
  if (positionals.length !== 1) {
    console.error(USAGE);
    return 2;
  }
  const worst = values.worst === undefined ? undefined : Number(values.worst);
  if (worst !== undefined && !(Number.isInteger(worst) && worst >= 0 && worst <= 1000)) {
    console.error(`kb-voice-qa: --worst must be an integer 0..1000, got "${values.worst}"`);
    return 2;
  }
  const calls = values.calls ?? process.env.KB_VOICE_QA_CALLS;
  const report = await writeLoadReport(positionals[0]!, {
    ...(calls ? { calls } : {}), ...(values.output ? { output: values.output } : {}), ...(worst !== undefined ? { worst } : {}),
  });
  console.log(`kb-voice-qa: ${report.folder}/index.html (${report.counters['voice.calls'] ?? 0} calls, ${report.errors.length} error codes)`);
  const saturation = saturationSentence(report);
  if (saturation) console.log(`kb-voice-qa: ${saturation} (see the report)`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error((error as Error).message ?? error);
    process.exit(1);
  },
);
