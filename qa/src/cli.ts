#!/usr/bin/env node
/**
 * `kb-voice-qa report <artillery.json> [--calls calls.jsonl] [--output folder] [--worst N]`:
 * the load report of an Artillery run (docs/qa.md "Load tests"). Usage errors exit with 2, as
 * kb-voice's and kb-voice-emulator's commands do (kb-voice/cli).
 */
import { integerOption, parseCommandArgs, UsageError, withUsage } from 'kb-voice/cli';
import { saturationSentence, writeLoadReport } from './reporter/load-report.js';

const USAGE = 'Usage: kb-voice-qa report <artillery-output.json> [--calls calls.jsonl] [--output voice-load-report] [--worst 10]';

async function main(argv: string[]): Promise<number | void> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h') {
    console.log(USAGE);
    return 0;
  }
  if (command === undefined) throw new UsageError('a command is required');
  if (command !== 'report') throw new UsageError(`unknown command "${command}"`);
  const { values, positionals } = parseCommandArgs(rest, { calls: { type: 'string' }, output: { type: 'string', short: 'o' }, worst: { type: 'string' } }, { positionals: true });
  if (positionals.length !== 1) throw new UsageError(`report takes one Artillery output file, got ${positionals.length}`);
  const worst = values.worst === undefined ? undefined : integerOption('worst', values.worst, 0, 0, 1000);
  const calls = values.calls ?? process.env.KB_VOICE_QA_CALLS;
  const report = await writeLoadReport(positionals[0]!, {
    ...(calls ? { calls } : {}), ...(values.output ? { output: values.output } : {}), ...(worst !== undefined ? { worst } : {}),
  });
  console.log(`kb-voice-qa: ${report.folder}/index.html (${report.counters['voice.calls'] ?? 0} calls, ${report.errors.length} error codes)`);
  const saturation = saturationSentence(report);
  if (saturation) console.log(`kb-voice-qa: ${saturation} (see the report)`);
}

withUsage('kb-voice-qa', USAGE, () => main(process.argv.slice(2))).then(
  (code) => process.exit(code ?? 0),
  (error: unknown) => {
    console.error((error as Error).message ?? error);
    process.exit(1);
  },
);
