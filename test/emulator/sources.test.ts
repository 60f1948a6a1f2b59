import { describe, expect, it } from 'vitest';
import { answerFromDataset, FIXTURE_IDS } from 'kb-voice-emulator';
import { useEmulator } from '../helpers/emulator.js';

// CONTRACT.md "Sources and ratings": stored references carry the sentence used (`content`) and,
// for a PDF, the 1-based page E9 finds it on; E18 answers what E17 stores.
describe('knowledge references: sentence, page, E9 and E18', () => {
  const t = useEmulator();

  it('a PDF reference names the page of its sentence, and E9 finds that sentence there', async () => {
    const { store } = t.emu.context;
    for (const [question, page] of [['Can I immerse the base in water?', 2], ['What is the MAX line of the kettle?', 1]] as const) {
      const { references } = answerFromDataset(store, t.robotId, question, 'en');
      const pdf = references.find((r) => r.file_id === FIXTURE_IDS.files.manualPdf);
      expect(pdf, `${question} cites the manual: ${JSON.stringify(references)}`).toBeDefined();
      expect(pdf!.page).toBe(page);
      const out = await t.api.pdf.highlight({ file_id: pdf!.file_id!, text: pdf!.content!, page: pdf!.page! });
      expect(out.success).toBe(true);
      expect(out.positions.length).toBeGreaterThan(0);
      expect((out.positions as { page: number }[]).every((p) => p.page === page)).toBe(true);
    }
  });

  it('references of text files have no page', () => {
    const { references } = answerFromDataset(t.emu.context.store, t.robotId, 'How long is the warranty?', 'en');
    expect(references.length).toBeGreaterThan(0);
    for (const r of references) expect(r).not.toHaveProperty('page');
  });

  it('E18 answers { message_id, references } equal to the reference_list E17 stores, for every seeded message', async () => {
    const messages = t.emu.context.store.messages.find(() => true);
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) {
      const [stored, refs] = await Promise.all([t.api.sessions.message(t.robotId, m.id), t.api.sessions.references(t.robotId, { message_id: m.id })]);
      expect(refs).toEqual({ message_id: m.id, references: stored.reference_list });
    }
  });
});
