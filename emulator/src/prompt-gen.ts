import type { GenPromptOut } from 'kb-voice/schemas';

/**
 * E2/E3's prompt generation, done deterministically instead of by a large model: the meta prompt is
 * read for a role ("You are …", "act as …", "role: …", "あなたは…"), rules (bullet or numbered
 * lines, and the remaining sentences) and a language, and composed with the robot's knowledge base
 * into a structured robot prompt. The change summary compares it with the current prompt line by
 * line. The same input always gives the same prompt.
 */

export interface PromptSource {
  /** The meta prompt (`prompt_in`). */
  metaPrompt: string;
  /** The prompt being replaced (`cur_prompt`, else the robot's stored prompt). */
  currentPrompt: string | null;
  robotName: string;
  datasetName: string;
  fileNames: string[];
  /** A conversation turn the new prompt should cover (from `message_id`). */
  example?: { question: string; answer: string };
}

const ROLE_PATTERNS = [
  /\byou are (?:an? |the )?([^.\n!?]+)/i,
  /\bact as (?:an? |the )?([^.\n!?]+)/i,
  /\brole\s*[:：]\s*([^.\n]+)/i,
  /あなたは([^。\n]+?)(?:です|である|として)/,
];

function findRole(meta: string, robotName: string): string {
  for (const p of ROLE_PATTERNS) {
    const m = p.exec(meta);
    if (m?.[1]) return m[1].trim().replace(/[,、]$/, '');
  }
  return `the assistant "${robotName}"`;
}

function findRules(meta: string): string[] {
  const rules: string[] = [];
  for (const raw of meta.split(/\n+/)) {
    const line = raw.trim();
    if (line === '') continue;
    const bullet = /^(?:[-*•・]|\d+[.)])\s*(.+)$/.exec(line);
    if (bullet?.[1]) {
      rules.push(bullet[1].trim());
      continue;
    }
    for (const sentence of line.split(/(?<=[.!?。！？])\s*/)) {
      const s = sentence.trim();
      if (s === '' || ROLE_PATTERNS.some((p) => p.test(s))) continue;
      rules.push(s);
    }
  }
  return [...new Set(rules)];
}

function findLanguage(meta: string): string | null {
  if (/japanese|日本語/i.test(meta)) return 'Japanese';
  if (/english|英語/i.test(meta)) return 'English';
  return null;
}

/** Generates the prompt fields from a meta prompt. */
export function generatePrompt(src: PromptSource): Required<{ [K in keyof GenPromptOut]: string }> {
  const role = findRole(src.metaPrompt, src.robotName);
  const rules = findRules(src.metaPrompt);
  const language = findLanguage(src.metaPrompt);
  const general = [
    language ? `Answer in ${language}.` : "Answer in the caller's language.",
    `Answer only from the knowledge base "${src.datasetName}"; when it has no answer, say so and offer human support.`,
    'Keep spoken answers short: one or two sentences.',
  ].join(' ');
  const lines = [
    `# Role`,
    `You are ${role}.`,
    ``,
    `# Knowledge`,
    `Use the knowledge base "${src.datasetName}"${src.fileNames.length ? ` (${src.fileNames.join(', ')})` : ''}.`,
    ``,
    `# Rules`,
    ...[...new Set([...rules, ...general.split(/(?<=\.)\s+/)])].map((r) => `- ${r}`),
  ];
  if (src.example) {
    lines.push('', '# Example', `Q: ${src.example.question}`, `A: ${src.example.answer}`);
  }
  const prompt = lines.join('\n');
  return { prompt, role, general, change_summary: summarize(src.currentPrompt, prompt) };
}

/** One-line description of how `next` differs from `previous`. */
export function summarize(previous: string | null, next: string): string {
  if (!previous || previous.trim() === '') return `Created a new prompt (${next.split('\n').filter(Boolean).length} lines).`;
  const before = new Set(previous.split('\n').map((l) => l.trim()).filter(Boolean));
  const after = new Set(next.split('\n').map((l) => l.trim()).filter(Boolean));
  const added = [...after].filter((l) => !before.has(l)).length;
  const removed = [...before].filter((l) => !after.has(l)).length;
  if (added === 0 && removed === 0) return 'No changes.';
  return `Added ${added} line${added === 1 ? '' : 's'} and removed ${removed} line${removed === 1 ? '' : 's'}.`;
}

/** Splits text into stream chunks of a few words (or characters, for Japanese). */
export function chunkText(text: string, size = 12): string[] {
  const parts = text.match(/\S+\s*|\s+/g) ?? [];
  const chunks: string[] = [];
  let cur = '';
  for (const p of parts) {
    cur += p;
    if (cur.length >= size) {
      chunks.push(cur);
      cur = '';
    }
  }
  if (cur) chunks.push(cur);
  // A long unbroken run (Japanese has no spaces) is cut into pieces of `size` characters.
  return chunks.flatMap((c) => (c.length > size * 2 ? c.match(new RegExp(`[^]{1,${size}}`, 'gu')) ?? [c] : [c]));
}
