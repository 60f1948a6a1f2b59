import type { Reference } from 'kb-voice/schemas';
import { pageOf } from './pdf/pages.js';
import type { FileRecord, Store } from './store.js';

/**
 * The emulator's "reasoning": a deterministic retrieval over the text of the robot's dataset files.
 * No model is involved, so answers are reproducible in tests: the question is split into terms
 * (English words; Japanese kanji/katakana runs), every sentence of every usable file is scored by
 * the inverse-document-frequency weight of the terms it shares with the question, and the best
 * sentences become the answer, with the files they came from as references.
 */

/** What {@link answerFromDataset} returns. */
export interface KnowledgeAnswer {
  answer: string;
  references: Reference[];
  /** Estimated prompt tokens: the question plus the retrieved context. */
  inputTokens: number;
  /** Estimated completion tokens of the answer. */
  outputTokens: number;
}

/** Rough token estimate used throughout the emulator: about four characters per token. */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.max(1, Math.ceil(text.length / 4));
}

const STOPWORDS = new Set(
  ('a an and are as at be by can could do does for from has have how i if in is it its me my of on or ' +
    'please should so tell than that the their then there these this to was what when where which who ' +
    'why will with would you your about any into our we us take use used get need want know').split(' '),
);

/** A few everyday synonyms, so "how much does it cost" finds the sentence about the price. */
const SYNONYMS: Record<string, string[]> = {
  cost: ['price'], price: ['cost'], much: ['price'], 値段: ['価格'], 価格: ['値段'], いくら: ['価格'],
  guarantee: ['warranty'], warranty: ['guarantee'], clean: ['descale'], cleaning: ['descale'],
  // "How long…" asks for a duration: sentences that state one are the candidates.
  long: ['minute', 'hour', 'year', 'day'], 時間: ['分'], 何分: ['分'],
  capacity: ['litre', 'liter'], big: ['litre'], 容量: ['リットル'],
};

const CJK = /[\u3040-\u30ff\u3400-\u9fff]/;
const KANJI_RUN = /[\u3400-\u9fff々]+/g;
const KATAKANA_RUN = /[\u30a0-\u30ffー]{2,}/g;
const WORD = /[a-z0-9][a-z0-9-]*/g;

/** Terms of a text: lower-cased English words (minus stop words, crude plural folding) and CJK runs. */
export function terms(text: string): Set<string> {
  const out = new Set<string>();
  const lower = text.toLowerCase();
  for (const m of lower.matchAll(WORD)) {
    let w = m[0];
    if (STOPWORDS.has(w) || w.length < 2) continue;
    if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
    out.add(w);
    // "two-year" also counts as "year".
    if (w.includes('-')) for (const part of w.split('-')) if (part.length > 1 && !STOPWORDS.has(part)) out.add(part);
  }
  for (const m of text.matchAll(KATAKANA_RUN)) out.add(m[0]);
  for (const m of text.matchAll(KANJI_RUN)) {
    const run = m[0];
    // Long kanji compounds also count by their two-character parts, so 交換方法 matches 交換.
    if (run.length <= 2) out.add(run);
    else for (let i = 0; i + 2 <= run.length; i++) out.add(run.slice(i, i + 2));
  }
  return out;
}

interface Sentence {
  file: FileRecord;
  index: number;
  text: string;
  terms: Set<string>;
  japanese: boolean;
}

/**
 * Splits file text into sentences: at line breaks, after Japanese full stops, and after Latin ones
 * only when whitespace follows (so "1.2 litre" and "2.4 GHz" stay whole).
 */
export function sentences(content: string): string[] {
  return content
    .split(/\n+|(?<=[.!?])\s+|(?<=[。！？])/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 1 && !/^#+\s/.test(s));
}

/** Files a robot answers from: those of its dataset that have text and did not fail to learn. */
function usableFiles(store: Store, robotId: string): FileRecord[] {
  const robot = store.robots.get(robotId);
  if (!robot) return [];
  return store.files.find((f) => f.dataset_id === robot.dataset_id && f.status !== 'failed' && f.content.trim() !== '');
}

/** Share of the question's term weight a sentence must cover to be an answer. */
const MIN_COVERAGE = 0.45;

/** Whether `a` already says `b` (ignoring `b`'s closing punctuation). */
const contains = (a: string, b: string) => a.includes(b.replace(/[.!?。！？]+$/u, ''));

const FALLBACK = {
  ja: '申し訳ありません。そのご質問にお答えできる情報がナレッジベースに見つかりませんでした。',
  en: "Sorry, I couldn't find information about that in the knowledge base.",
};

/**
 * Answers `question` from the robot's dataset. Deterministic: the same store and question always
 * give the same answer. When nothing in the dataset shares a term with the question, the answer is
 * a clear fallback in the session language (`ja…` → Japanese, anything else → English) with no
 * references.
 */
export function answerFromDataset(store: Store, robotId: string, question: string, language: string): KnowledgeAnswer {
  const wantJapanese = CJK.test(question) || (language.toLowerCase().startsWith('ja') && !/[a-z]{3,}/i.test(question));
  const all: Sentence[] = [];
  for (const file of usableFiles(store, robotId)) {
    sentences(file.content).forEach((text, index) => {
      all.push({ file, index, text, terms: terms(text), japanese: CJK.test(text) });
    });
  }
  const q = terms(question);
  if (question.includes('いくら')) q.add('いくら');
  const df = new Map<string, number>();
  for (const s of all) for (const t of q) for (const x of [t, ...(SYNONYMS[t] ?? [])]) if (s.terms.has(x)) df.set(x, (df.get(x) ?? 0) + 1);
  // A term the dataset never mentions weighs as much as the rarest one, so an answer must cover
  // enough of the question or it is the fallback rather than an unrelated sentence.
  const weight = (t: string) => Math.log(1 + all.length / (df.get(t) ?? 0.5));
  /** Each question term counts once: by itself, or else by its best synonym the sentence holds. */
  const match = (s: Sentence, t: string) => Math.max(0, ...[t, ...(SYNONYMS[t] ?? [])].filter((x) => s.terms.has(x)).map(weight));
  const questionWeight = [...q].reduce((n, t) => n + weight(t), 0);

  const scored = all
    .map((s) => {
      let covered = 0;
      for (const t of q) covered += match(s, t);
      // Prefer sentences in the language the question is asked in; the files hold both.
      const score = covered > 0 && s.japanese === wantJapanese ? covered * 1.5 : covered;
      return { s, score, covered };
    })
    .filter((x) => x.covered > 0 && x.covered >= MIN_COVERAGE * questionWeight)
    .sort((a, b) => b.score - a.score || a.s.file.id.localeCompare(b.s.file.id) || a.s.index - b.s.index);

  const fallbackLang = language.toLowerCase().startsWith('ja') || wantJapanese ? 'ja' : 'en';
  const best = scored[0];
  if (!best) {
    const answer = FALLBACK[fallbackLang];
    return { answer, references: [], inputTokens: estimateTokens(question), outputTokens: estimateTokens(answer) };
  }
  const chosen = scored
    .filter((x) => x.s.japanese === best.s.japanese && x.score >= best.score * 0.75)
    // A sentence that repeats what a better one already says adds nothing.
    .filter((x, i, list) => !list.slice(0, i).some((y) => contains(y.s.text, x.s.text) || contains(x.s.text, y.s.text)))
    .slice(0, 2)
    .sort((a, b) => a.s.file.id.localeCompare(b.s.file.id) || a.s.index - b.s.index);
  const answer = chosen.map((x) => x.s.text).join(best.s.japanese ? '' : ' ');
  // CONTRACT.md "Sources and ratings": `content` is the sentence used, `page` (1-based) where E9 finds it in a PDF.
  const references: Reference[] = chosen.map((x) => {
    const page = x.s.file.pdf ? pageOf(x.s.file.pdf, x.s.text) : undefined;
    return {
      id: `${x.s.file.id}:${x.s.index}`,
      title: x.s.file.name,
      url: x.s.file.url ?? null,
      dataset_id: x.s.file.dataset_id,
      file_id: x.s.file.id,
      content: x.s.text,
      score: Math.round(x.score * 1000) / 1000,
      ...(page !== undefined ? { page } : {}),
    };
  });
  const context = chosen.map((x) => x.s.text).join('\n');
  return {
    answer,
    references,
    inputTokens: estimateTokens(question) + estimateTokens(context),
    outputTokens: estimateTokens(answer),
  };
}
