import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerFromDataset, createMemoryStore, estimateTokens, FIXTURE_IDS, type Store } from 'kb-voice-emulator';
import { seedStore } from '../../emulator/src/fixtures/seed.js';

let store: Store;
let dir: string;
beforeAll(async () => {
  store = createMemoryStore();
  dir = await mkdtemp(join(tmpdir(), 'kbv-knowledge-'));
  await seedStore(store, { apiKey: 'k', audioDir: dir });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const R = FIXTURE_IDS.robotId;

describe('answerFromDataset', () => {
  it('answers English and Japanese questions from the matching files, with references', () => {
    const en = answerFromDataset(store, R, 'How do I pair the kettle with the app?', 'en');
    expect(en.answer).toBe('To pair the kettle, hold the power button for five seconds until the ring light blinks blue, then follow the steps in the app.');
    expect(en.references[0]).toMatchObject({ file_id: FIXTURE_IDS.files.faqEn, dataset_id: FIXTURE_IDS.datasetId, title: 'aozora-ak3-faq-en.md' });
    const ja = answerFromDataset(store, R, '温度は何度まで設定できますか', 'ja');
    expect(ja.answer).toBe('温度は40度から100度まで1度単位で設定できます。');
    expect(ja.references[0]!.file_id).toBe(FIXTURE_IDS.files.faqJa);
  });

  it('answers "how long" with the sentence that states the duration, once', () => {
    expect(answerFromDataset(store, R, 'How long does the kettle take to boil water?', 'en').answer)
      .toBe('It boils one litre of water in about three minutes and keeps water warm for up to eight hours.');
    expect(answerFromDataset(store, R, 'How long is the warranty?', 'en').answer)
      .toBe('The Aozora AK-3 comes with a two-year warranty from the date of purchase.');
    // The FAQ and the PDF both say how to descale: the shorter repetition is not appended.
    expect(answerFromDataset(store, R, 'How do I descale the kettle?', 'en').answer)
      .toBe('Descale the kettle once a month with citric acid: fill it with water, add one tablespoon of citric acid, boil, and rinse twice.');
  });

  it('keeps decimals inside one sentence', () => {
    expect(answerFromDataset(store, R, 'What is the capacity of the kettle?', 'en').answer).toContain('The Aozora AK-3 is a 1.2 litre smart kettle made by Hikari Home.');
  });

  it('falls back instead of answering with an unrelated sentence', () => {
    const r = answerFromDataset(store, R, 'Can I use it abroad?', 'en');
    expect(r.answer).toBe("Sorry, I couldn't find information about that in the knowledge base.");
    expect(r.references).toEqual([]);
  });

  it('uses the PDF manual text too', () => {
    expect(answerFromDataset(store, R, 'Can I immerse the base in water?', 'en').references[0]!.file_id).toBe(FIXTURE_IDS.files.manualPdf);
  });

  it('is deterministic and estimates tokens at about four characters each', () => {
    const a = answerFromDataset(store, R, 'How long is the warranty?', 'en');
    expect(answerFromDataset(store, R, 'How long is the warranty?', 'en')).toEqual(a);
    expect(a.outputTokens).toBe(Math.ceil(a.answer.length / 4));
    expect(a.inputTokens).toBeGreaterThan(estimateTokens('How long is the warranty?'));
    expect(estimateTokens('')).toBe(0);
  });

  it('falls back clearly, in the session language, when nothing matches', () => {
    const en = answerFromDataset(store, R, 'What is the capital of Peru?', 'en');
    expect(en).toMatchObject({ answer: "Sorry, I couldn't find information about that in the knowledge base.", references: [] });
    expect(answerFromDataset(store, R, 'こんにちは', 'ja').answer).toContain('見つかりませんでした');
    expect(answerFromDataset(store, 'unknown-robot', 'warranty', 'en').references).toEqual([]);
  });

  it('ignores files that failed to learn', () => {
    const file = store.files.get(FIXTURE_IDS.files.faqEn)!;
    store.files.patch(file.id, { status: 'failed' });
    try {
      expect(answerFromDataset(store, R, 'How do I pair the kettle with the app?', 'en').references.every((r) => r.file_id !== file.id)).toBe(true);
    } finally {
      store.files.put(file);
    }
  });
});
