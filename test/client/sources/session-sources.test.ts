import { describe, expect, it } from 'vitest';
import { VoiceSession, type Source, type Turn, type VoiceSessionApi } from '../../../src/client/index.js';
import { SOURCES_READ_LIMIT_MS, SOURCES_RETRY_MS, withSources } from '../../../src/sources/index.js';
import { FakeClock, ScriptedService } from '../../../src/testing/index.js';

const REF = { id: 'f1:0', title: 'faq.md', url: 'https://example.com/faq', dataset_id: 'd1', file_id: 'f1', content: 'Two years.', score: 1 };

async function connected(options: { api?: (api: VoiceSessionApi) => VoiceSessionApi } = {}) {
  const clock = new FakeClock();
  const service = new ScriptedService({ clock });
  const base = service.sessionOptions;
  const session = new VoiceSession({ aiId: 'robot-1', ...base, api: options.api ? options.api(base.api) : base.api, sources: withSources() });
  const events: Array<[number, readonly Source[]]> = [];
  session.on('sources', (turnId, sources) => events.push([turnId, sources]));
  await session.start();
  return { clock, service, session, events };
}

/** An api whose E17 is `message` (E18 absent unless given). */
function withMessages(api: VoiceSessionApi, message: (id: string) => Promise<unknown>, references?: (id: string) => Promise<unknown>): VoiceSessionApi {
  return { realtime: api.realtime, sessions: { message: (_ai, id) => message(id), ...(references ? { references: (_ai: string, q: { message_id: string }) => references(q.message_id) } : {}) } };
}

describe('Turn.sources: read in the background after each turn', () => {
  it('reads the stored message once, updates the snapshot turn immutably, emits sources, and report() carries them', async () => {
    const { clock, service, session, events } = await connected();
    service.turn('How long is the warranty?', 'Two years.');
    const turn = session.getSnapshot().turns[0]!;
    expect(turn.sources).toBeUndefined(); // the turn is not delayed by the read
    const before = session.getSnapshot();
    // ScriptedService stores the message without references unless the script says: cited nothing.
    await clock.settle();
    expect(events).toEqual([[1, []]]);
    expect(session.getSnapshot()).not.toBe(before);
    expect(session.getSnapshot().turns[0]!.sources).toEqual([]);
    expect(turn.sources).toBeUndefined(); // the old turn object is untouched (frozen)
    expect(Object.isFrozen(session.getSnapshot().turns[0])).toBe(true);
    await session.end();
  });

  it('supplies scripted sources through E17 (kb-voice/testing), typed questions too', async () => {
    const { clock, service, session, events } = await connected();
    service.userSays('warranty?');
    service.reply('Two years.', { question: 'warranty?', sources: [REF, 'opaque'] });
    service.reply('Hi.', { question: 'hello', input: 'text' });
    await clock.settle();
    const [first, second] = session.getSnapshot().turns as [Turn, Turn];
    expect(first.sources).toEqual([{ title: 'faq.md', url: REF.url, fileId: 'f1', datasetId: 'd1', snippet: 'Two years.', score: 1, raw: REF }, { title: '', raw: 'opaque' }]);
    expect(second.sources).toEqual([]);
    expect(events.map(([id]) => id)).toEqual([1, 1]);
    expect(session.turns[0]!.sources).toBe(first.sources);
    await session.end();
  });

  it('asks E18 when E17 names nothing recognizable, and keeps E17 when E18 fails', async () => {
    const asked: string[] = [];
    const { clock, service, session } = await connected({
      api: (api) => withMessages(api, async (id) => (asked.push(`E17 ${id}`), { reference_list: id.endsWith('1') ? [3, 4] : null }), async (id) => {
        asked.push(`E18 ${id}`);
        if (id.endsWith('2')) throw new Error('404');
        return { message_id: id, references: [REF] };
      }),
    });
    service.turn('a', 'b');
    service.turn('c', 'd');
    await clock.settle();
    expect(asked).toEqual(['E17 scripted-message-1', 'E17 scripted-message-2', 'E18 scripted-message-1', 'E18 scripted-message-2']);
    expect(session.turns.map((t) => t.sources?.map((s) => s.title))).toEqual([['faq.md'], []]);
    await session.end();
  });

  it('bounds each read in time and retries once; a second failure leaves sources undefined, no error', async () => {
    let calls = 0;
    const signals: AbortSignal[] = [];
    const { clock, service, session, events } = await connected({
      api: (api) => ({ realtime: api.realtime, sessions: { message: (_ai, _id, options) => (calls++, signals.push(options!.signal!), new Promise(() => undefined)) } }),
    });
    const errors: unknown[] = [];
    session.on('error', (e) => errors.push(e));
    service.turn('a', 'b');
    await clock.settle();
    expect(calls).toBe(1);
    await clock.advance(SOURCES_READ_LIMIT_MS - 1);
    expect(signals[0]!.aborted).toBe(false);
    await clock.advance(1);
    expect(signals[0]!.aborted).toBe(true);
    expect(calls).toBe(1);
    await clock.advance(SOURCES_RETRY_MS);
    expect(calls).toBe(2);
    await clock.advance(SOURCES_READ_LIMIT_MS + SOURCES_RETRY_MS);
    expect(calls).toBe(2);
    expect(session.turns[0]!.sources).toBeUndefined();
    expect(events).toEqual([]);
    expect(errors).toEqual([]);
    await session.end();
  });

  it('a failed first read is retried once and its result lands', async () => {
    let calls = 0;
    const { clock, service, session } = await connected({
      api: (api) => withMessages(api, async () => {
        if (++calls === 1) throw new Error('not stored yet');
        return { reference_list: [REF] };
      }),
    });
    service.turn('a', 'b');
    await clock.settle();
    expect(session.turns[0]!.sources).toBeUndefined();
    await clock.advance(SOURCES_RETRY_MS);
    expect(calls).toBe(2);
    expect(session.turns[0]!.sources?.map((s) => s.title)).toEqual(['faq.md']);
    await session.end();
  });

  it('a slow read never delays the next turn, and each turn gets its own sources', async () => {
    const pending = new Map<string, (value: unknown) => void>();
    const { clock, service, session } = await connected({
      api: (api) => withMessages(api, (id) => new Promise((resolve) => pending.set(id, resolve))),
    });
    service.turn('first', 'one');
    await clock.settle();
    service.turn('second', 'two');
    expect(session.turns.map((t) => t.answer)).toEqual(['one', 'two']); // the next turn finished while the first read hangs
    pending.get('scripted-message-2')!({ reference_list: [{ title: 'two.md' }] });
    await clock.settle();
    expect(session.turns.map((t) => t.sources?.map((s) => s.title))).toEqual([undefined, ['two.md']]);
    pending.get('scripted-message-1')!({ reference_list: [{ title: 'one.md' }] });
    await clock.settle();
    expect(session.getSnapshot().turns.map((t) => t.sources?.map((s) => s.title))).toEqual([['one.md'], ['two.md']]);
    await session.end();
  });

  it('a read that ends after the call ended still lands', async () => {
    let release!: (value: unknown) => void;
    const { clock, service, session } = await connected({ api: (api) => withMessages(api, () => new Promise((resolve) => (release = resolve))) });
    service.turn('a', 'b');
    await session.end();
    release({ reference_list: [{ title: 'late.md' }] });
    await clock.settle();
    expect(session.getSnapshot().turns[0]!.sources?.map((s) => s.title)).toEqual(['late.md']);
  });

  it('without the sources option nothing is read and rate() is not_supported', async () => {
    const clock = new FakeClock();
    const service = new ScriptedService({ clock });
    let reads = 0;
    const api = { realtime: service.sessionOptions.api.realtime, sessions: { message: async () => (reads++, {}) } };
    const session = new VoiceSession({ aiId: 'robot-1', ...service.sessionOptions, api });
    await session.start();
    service.turn('a', 'b');
    await clock.advance(10_000);
    expect(reads).toBe(0);
    expect(session.turns[0]!.sources).toBeUndefined();
    await expect(session.rate(1, { rating: 1 })).rejects.toMatchObject({ code: 'not_supported' });
    await session.end();
  });
});
