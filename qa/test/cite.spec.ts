import { expect, test } from 'kb-voice-qa';

// expect(turn).toCite(): the turn's sources (read by the page after the turn) name the file, title
// or URL; a miss lists the sources it had. The emulator's answers cite its dataset files.

test('toCite passes for a cited file and fails listing the sources otherwise', async ({ voiceCall }) => {
  const call = await voiceCall.start();
  await call.type('How long is the warranty?');
  const turn = await call.nextTurn();
  await expect(turn).toCite('warranty-and-support.txt');
  await expect(turn).toCite(/warranty/i);
  await expect(turn).not.toCite(/quick-start\.pdf/);
  expect(turn.sources!.length).toBeGreaterThan(0);
  const fileId = turn.sources![0]!.fileId!;
  await expect(turn).toCite(fileId); // by file id too

  const miss = (await expect(turn).toCite(/flux capacitor/i, { within: 1000 }).catch((e: unknown) => e)) as Error;
  expect(miss).toBeInstanceOf(Error);
  expect(miss.message).toContain('a source whose title, file id or URL matches /flux capacitor/i');
  expect(miss.message).toContain('Received sources:');
  expect(miss.message).toContain('"warranty-and-support.txt"');
  expect(miss.message).toContain('How long is the warranty?');

  // A PDF answer: the page is listed.
  await call.type('Can I immerse the base in water?');
  const pdf = await call.nextTurn();
  await expect(pdf).toCite('aozora-ak3-quick-start.pdf');
  expect(pdf.sources!.find((s) => s.title === 'aozora-ak3-quick-start.pdf')!.page).toBe(2);
  const report = await call.end();
  expect(report.turns.map((t) => t.sources?.length ?? -1).every((n) => n > 0)).toBe(true);
});

test('toCite on an answer that cites nothing says so', async ({ voiceCall }) => {
  const call = await voiceCall.start();
  await call.type('Tell me about the flux capacitor of the time machine');
  const turn = await call.nextTurn();
  const error = (await expect(turn).toCite(/anything/, { within: 5000 }).catch((e: unknown) => e)) as Error;
  expect(error.message).toContain('the answer cites no source');
  await call.end();
});
