import { describe, expect, it } from 'vitest';
import { MemoryCollection, createMemoryStore, type SessionRecord } from 'kb-voice-emulator';

// The in-memory store's indexes: E11–E19 read through them, so they must follow every write.
describe('MemoryCollection.where', () => {
  type Row = { id: string; group: string; other: string };
  it('follows put, re-put with a new value, patch, delete and clear; unindexed fields are scanned', () => {
    const c = new MemoryCollection<Row>(['group']);
    c.put({ id: 'a', group: 'x', other: '1' });
    c.put({ id: 'b', group: 'x', other: '2' });
    c.put({ id: 'c', group: 'y', other: '1' });
    expect(c.where('group', 'x').map((r) => r.id)).toEqual(['a', 'b']);
    c.put({ id: 'a', group: 'y', other: '1' });
    expect(c.where('group', 'x').map((r) => r.id)).toEqual(['b']);
    expect(c.where('group', 'y').map((r) => r.id)).toEqual(['c', 'a']);
    c.patch('b', { group: 'z' });
    expect(c.where('group', 'x')).toEqual([]);
    expect(c.where('group', 'z')).toEqual([{ id: 'b', group: 'z', other: '2' }]);
    c.patch('b', { other: '3' });
    expect(c.where('group', 'z')).toEqual([{ id: 'b', group: 'z', other: '3' }]);
    c.delete('c');
    expect(c.where('group', 'y').map((r) => r.id)).toEqual(['a']);
    expect(c.where('other', '1').map((r) => r.id)).toEqual(['a']);
    c.clear();
    expect(c.where('group', 'y')).toEqual([]);
  });
});

describe('sessions.between', () => {
  const session = (id: string, robot: string, minutes: number): SessionRecord => ({
    id, robot_id: robot, user_identifier: null, language: 'en', title: '', duration_ms: 0,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, minutes)).toISOString(),
  });
  const at = (minutes: number) => Date.UTC(2026, 0, 1, 0, minutes);
  const ids = (rows: SessionRecord[]) => rows.map((s) => s.id);

  it('answers a robot window newest first, inclusive, ties by id, through appends and out-of-order writes', () => {
    const { sessions } = createMemoryStore();
    sessions.put(session('s1', 'r', 1));
    sessions.put(session('s3', 'r', 3));
    expect(ids(sessions.between('r', -Infinity, Infinity))).toEqual(['s3', 's1']);
    sessions.put(session('s5', 'r', 5)); // append
    sessions.put(session('s2', 'r', 2)); // out of order
    sessions.put(session('s2b', 'r', 2)); // tie
    sessions.put(session('q1', 'q', 1)); // another robot
    expect(ids(sessions.between('r', -Infinity, Infinity))).toEqual(['s5', 's3', 's2', 's2b', 's1']);
    expect(ids(sessions.between('r', at(2), at(3)))).toEqual(['s3', 's2', 's2b']);
    expect(ids(sessions.between('r', at(4), at(4)))).toEqual([]);
    expect(ids(sessions.between('q', -Infinity, Infinity))).toEqual(['q1']);
    sessions.patch('s1', { created_at: session('', '', 9).created_at });
    sessions.patch('s5', { title: 'kept in place' });
    expect(ids(sessions.between('r', -Infinity, Infinity))).toEqual(['s1', 's5', 's3', 's2', 's2b']);
    sessions.delete('s3');
    sessions.put({ ...session('q1', 'r', 4) }); // moved to robot r
    expect(ids(sessions.between('r', -Infinity, Infinity))).toEqual(['s1', 's5', 'q1', 's2', 's2b']);
    expect(ids(sessions.between('q', -Infinity, Infinity))).toEqual([]);
    expect(ids(sessions.between('nobody', -Infinity, Infinity))).toEqual([]);
    sessions.clear();
    expect(sessions.between('r', -Infinity, Infinity)).toEqual([]);
  });
});
