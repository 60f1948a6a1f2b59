/**
 * `kb-voice-qa/reporter`: a Playwright reporter over every voice call of the run —
 * `['kb-voice-qa/reporter', { outputFolder: 'voice-report' }]` writes `summary.json` and
 * `index.html` (latency percentiles per test and overall, answers, quality, audio players).
 * It reads only the calls' attachments (`voice-call.json`, the recorded WAVs), so it works the
 * same on a merged report: `npx playwright merge-reports --config merge.config.ts ./all-blob-reports`.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FullConfig, FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { EVIDENCE_NAME } from '../evidence.js';
import { readEvidence } from './evidence-schema.js';
import { renderHtml, type RunFacts } from './html.js';
import { buildSummary, type CollectedTest } from './summary.js';

export interface VoiceReporterOptions {
  /** Where summary.json, index.html and audio/ go (default `voice-report`, relative to the config's folder). */
  outputFolder?: string;
}

export type { Summary, SummaryCall, Percentiles } from './summary.js';
export { buildSummary, percentiles } from './summary.js';

type Attachment = TestResult['attachments'][number];

async function bodyOf(attachment: Attachment): Promise<Buffer | undefined> {
  if (attachment.body) return attachment.body;
  if (attachment.path) return readFile(attachment.path).catch(() => undefined);
  return undefined;
}

export default class VoiceReporter implements Reporter {
  #folder: string;
  #base = process.cwd();
  /** Latest attempt of each test, by test id (a retry replaces the failed attempt). */
  readonly #tests = new Map<string, Promise<CollectedTest | undefined>>();
  readonly #order: string[] = [];

  constructor(options: VoiceReporterOptions = {}) {
    this.#folder = options.outputFolder ?? 'voice-report';
  }

  printsToStdio(): boolean {
    return false;
  }

  #cleared: Promise<void> = Promise.resolve();

  #run: RunFacts = { startedAt: new Date().toISOString(), environment: '' };

  onBegin(config: FullConfig): void {
    if (config.configFile) this.#base = path.dirname(config.configFile);
    this.#run = {
      startedAt: new Date().toISOString(),
      environment: [`Node ${process.version}`, `${process.platform} ${process.arch}`, `Playwright ${config.version}`, ...(process.env.CI ? ['CI'] : []), ...(config.shard ? [`shard ${config.shard.current}/${config.shard.total}`] : [])].join(' · '),
    };
    // Audio of an earlier run would otherwise pile up beside this run's.
    this.#cleared = rm(path.join(this.#outputFolder(), 'audio'), { recursive: true, force: true });
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    if (!this.#tests.has(test.id)) this.#order.push(test.id);
    this.#tests.set(test.id, this.#collect(test, result));
  }

  async #collect(test: TestCase, result: TestResult): Promise<CollectedTest | undefined> {
    const evidence = result.attachments.filter((a) => a.name === EVIDENCE_NAME);
    if (evidence.length === 0) return undefined;
    const problems: string[] = [];
    await this.#cleared;
    const [file, ...titles] = test.titlePath().filter(Boolean);
    const collected: CollectedTest = {
      test: [file, ...titles].join(' › '),
      file: file ?? '',
      status: result.status,
      expected: result.status === test.expectedStatus,
      errors: result.errors.map((e) => stripAnsi(e.message ?? e.value ?? String(e))),
      calls: [],
      problems,
    };
    const byName = new Map(result.attachments.map((a) => [a.name, a]));
    for (const [index, attachment] of evidence.entries()) {
      const body = await bodyOf(attachment);
      const read = body ? readEvidence(body.toString('utf8')) : { ok: false as const, problem: 'its file could not be read' };
      if (read === null) continue;
      if (!read.ok) {
        // One bad attachment costs its own call only: the test's other calls and the run's report stay.
        problems.push(`${EVIDENCE_NAME} #${index + 1} is malformed and left out: ${read.problem}`);
        continue;
      }
      const parsed = read.evidence;
      const audio: Array<{ name: string; href: string }> = [];
      for (const name of parsed.audio) {
        const found = byName.get(name);
        const bytes = found ? await bodyOf(found) : undefined;
        if (!bytes) continue;
        const file = `${createHash('sha1').update(bytes).digest('hex').slice(0, 16)}.wav`;
        await mkdir(path.join(this.#outputFolder(), 'audio'), { recursive: true });
        await writeFile(path.join(this.#outputFolder(), 'audio', file), bytes);
        audio.push({ name, href: `audio/${file}` });
      }
      collected.calls.push({ evidence: parsed, audio });
    }
    return collected;
  }

  #outputFolder(): string {
    return path.resolve(this.#base, this.#folder);
  }

  async onEnd(_result: FullResult): Promise<void> {
    const tests: CollectedTest[] = [];
    for (const id of this.#order) {
      const collected = await this.#tests.get(id);
      if (collected) tests.push(collected);
    }
    const summary = buildSummary(tests);
    const folder = this.#outputFolder();
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
    await writeFile(path.join(folder, 'index.html'), renderHtml(summary, tests, this.#run));
  }
}

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

export { writeLoadReport, buildLoadReport, generatorSaturated, parseArtilleryReport, parseCallRecords, saturationCause, saturationSentence, type LoadReport, type LoadReportOptions } from './load-report.js';
