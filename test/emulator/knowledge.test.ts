import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerFromDataset, createMemoryStore, estimateTokens, FIXTURE_IDS, type Store } from '../../src/emulator/index.js';
import { seedStore } from '../../src/emulator/fixtures/seed.js';

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
