import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { renderLoadHtml } from './load-html.js';
import { buildLoadReport, parseArtilleryReport, parseCallRecords, type LoadReport } from './load-model.js';

export { buildLoadReport, generatorSaturated, parseArtilleryReport, parseCallRecords, saturationCause, saturationSentence, type LoadReport } from './load-model.js';

/** Options of {@link writeLoadReport}. */
export interface LoadReportOptions {
  /** The calls file the run wrote (`KB_VOICE_QA_CALLS`): transcripts and audio of the worst calls. */
  calls?: string;
  /** Folder for `index.html` and `load-summary.json` (default `voice-load-report`). */
  output?: string;
  /** How many worst calls the page shows (default 10). */
  worst?: number;
}

/**
 * Reads Artillery's JSON output (`artillery run --output out.json`) and the calls file, and writes
 * `index.html` (percentiles over time, concurrency, generator CPU, errors by code, the worst calls
 * with transcripts and recording links) and `load-summary.json` to `output`. Resolves with the report.
 */
export async function writeLoadReport(artilleryJson: string, options: LoadReportOptions = {}): Promise<LoadReport & { folder: string }> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(artilleryJson, 'utf8'));
  } catch (cause) {
    throw new Error(`kb-voice-qa: cannot read ${artilleryJson} as JSON`, { cause });
  }
  const calls = options.calls ? parseCallRecords(await readFile(options.calls, 'utf8')) : [];
  const report = buildLoadReport(parseArtilleryReport(raw), calls, { worst: options.worst ?? 10 });
  const folder = path.resolve(options.output ?? 'voice-load-report');
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, 'load-summary.json'), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(path.join(folder, 'index.html'), renderLoadHtml(report, path.basename(artilleryJson)));
  return { ...report, folder };
}
