/**
 * WebKit's in-memory IndexedDB (Safari's Private Browsing, WebDriver sessions) answers a half-open
 * range such as `IDBKeyRange.upperBound(now, true)` with the records that have no key in the index as
 * well (issue 42): the expiry sweep then deleted every response stored with `expiresAt: null` at the
 * next engine start, so stored responses were 404 after a reload. This index does what WebKit does;
 * the store's ranges must keep those records out anyway.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { keysAbove, keysBelow, type SweepableStore, sweepStore } from '../../src/store/idb-tx';

type Row = { id: string; expiresAt: number | null };

/** An index over `expiresAt` that, as WebKit's in-memory one, lets null keys through an open lower end. */
function webkitLikeStore(rows: Row[]): { store: SweepableStore; rows: Row[] } {
  const index = {
    async getAllKeys(query: IDBKeyRange | null, count = Number.POSITIVE_INFINITY) {
      return rows
        .filter((r) =>
          r.expiresAt === null ? query?.lower === undefined : !query || query.includes(r.expiresAt),
        )
        .slice(0, count)
        .map((r) => r.id);
    },
  };
  return { rows, store: { count: async () => rows.length, index: () => index } };
}

describe('store key ranges where a half-open range matches null keys (WebKit)', () => {
  it('the expiry sweep removes the expired response and keeps the one stored without expiry', async () => {
    const { store, rows } = webkitLikeStore([
      { id: 'resp_kept', expiresAt: null },
      { id: 'resp_expired', expiresAt: 5 },
      { id: 'resp_later', expiresAt: 50 },
    ]);
    const result = await sweepStore(
      async (pick) => {
        const keys = await pick(store);
        for (const key of keys)
          rows.splice(
            rows.findIndex((r) => r.id === key),
            1,
          );
        return keys.length;
      },
      10,
      null,
    );
    expect(result.expired).toBe(1);
    expect(rows.map((r) => r.id)).toEqual(['resp_kept', 'resp_later']);
  });

  it('keysBelow and keysAbove hold what the half-open ranges held, and have both ends', () => {
    const below = keysBelow(10);
    expect([below.lower, below.upper, below.lowerOpen, below.upperOpen]).toEqual([
      -Infinity,
      10,
      false,
      true,
    ]);
    expect([9, 10, -1e300].map((k) => below.includes(k))).toEqual([true, false, true]);
    const key: [number, string] = [100, 'file-b'];
    const after = keysAbove(key);
    const before = keysBelow(key);
    const probes: [number, string][] = [
      [100, 'file-a'],
      [100, 'file-b'],
      [100, 'file-c'],
      [99, 'zzz'],
      [1e15, ''],
    ];
    expect(probes.map((k) => after.includes(k))).toEqual([false, false, true, false, true]);
    expect(probes.map((k) => before.includes(k))).toEqual([true, false, false, true, false]);
    expect(after.upper).toBeDefined();
    expect(before.lower).toBeDefined();
  });
});
