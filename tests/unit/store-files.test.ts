// The FileStore contract (`store.files`, issue 22) on both stores: bytes apart from metadata but
// written, read and deleted together, expiry, listing order, and (IndexedDB) the v2 → v3 upgrade and
// a quota failure that stores nothing. A model-based property test drives random operation
// sequences against a plain model of what must be visible.
import 'fake-indexeddb/auto';
import { IDBDatabase as FakeDatabase, IDBFactory } from 'fake-indexeddb';
import fc from 'fast-check';
import type { FileObject } from 'openai/resources/files';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/store/idb-schema';
import {
  DB_NAME,
  type FileStore,
  MemoryStore,
  openIdbStore,
  type StoredFileMeta,
} from '../../src/store/index';
import { makeStoredResponse } from './fixtures/response-fixture';
import { failNthPut, openRaw } from './fixtures/store-harness';

afterEach(() => vi.restoreAllMocks());

function meta(
  id: string,
  createdAt: number,
  opts: { purpose?: string; expiresAt?: number | null } = {},
): StoredFileMeta {
  const file = {
    id,
    object: 'file',
    bytes: 3,
    created_at: createdAt,
    filename: `${id}.txt`,
    purpose: opts.purpose ?? 'user_data',
    status: 'processed',
  } as FileObject;
  return { file, mimeType: 'text/plain', expiresAt: opts.expiresAt ?? null };
}
const bytes = (id: string) => new TextEncoder().encode(id.slice(-3));

const implementations: {
  name: string;
  open: (now: () => number) => Promise<{ files: FileStore; factory?: IDBFactory }>;
}[] = [
  { name: 'MemoryStore', open: async (now) => ({ files: new MemoryStore({ now }).files }) },
  {
    name: 'IdbStore',
    open: async (now) => {
      const factory = new IDBFactory();
      return { files: (await openIdbStore({ now, indexedDB: factory })).files, factory };
    },
  },
];

describe.each(implementations)('FileStore contract: $name', ({ open }) => {
  it('keeps metadata and bytes, and hands out copies', async () => {
    const { files } = await open(Date.now);
    await files.put(meta('file-a', 1), bytes('file-a'));
    const read = await files.read('file-a');
    expect(read).toEqual({ meta: meta('file-a', 1), bytes: bytes('file-a') });
    read?.bytes.fill(0);
    (read as { meta: StoredFileMeta }).meta.file.filename = 'changed';
    expect(await files.read('file-a')).toEqual({ meta: meta('file-a', 1), bytes: bytes('file-a') });
    expect(await files.get('file-a')).toEqual(meta('file-a', 1));
    expect(await files.get('file-none')).toBeUndefined();
  });

  it('lists by created_at then id, both orders, by purpose, with after and has_more', async () => {
    const { files } = await open(Date.now);
    const ids = ['file-c', 'file-a', 'file-b', 'file-d'];
    for (const [i, id] of ids.entries()) {
      await files.put(
        meta(id, i < 3 ? 5 : 6, { purpose: id === 'file-b' ? 'vision' : 'user_data' }),
        bytes(id),
      );
    }
    const asc = await files.list({ limit: 10, order: 'asc' });
    expect(asc?.data.map((f) => f.id)).toEqual(['file-a', 'file-b', 'file-c', 'file-d']);
    const desc = await files.list({ limit: 2, order: 'desc' });
    expect(desc).toMatchObject({ hasMore: true });
    expect(desc?.data.map((f) => f.id)).toEqual(['file-d', 'file-c']);
    const next = await files.list({ limit: 2, order: 'desc', after: 'file-c' });
    expect(next).toEqual({
      data: [meta('file-b', 5).file, meta('file-a', 5).file].map((f, i) =>
        i === 0 ? { ...f, purpose: 'vision' } : f,
      ),
      hasMore: false,
    });
    expect((await files.list({ limit: 10, order: 'asc', purpose: 'vision' }))?.data.map((f) => f.id)).toEqual(
      ['file-b'],
    );
    expect(await files.list({ limit: 10, order: 'asc', after: 'file-none' })).toBeNull();
  });

  it('an expired file reads as missing everywhere, and sweep removes it', async () => {
    let now = 1_000_000;
    const { files } = await open(() => now);
    await files.put(meta('file-old', 1, { expiresAt: 1_000_500 }), bytes('file-old'));
    await files.put(meta('file-new', 2), bytes('file-new'));
    now = 1_000_501;
    expect(await files.get('file-old')).toBeUndefined();
    expect(await files.read('file-old')).toBeUndefined();
    expect((await files.list({ limit: 10, order: 'asc' }))?.data.map((f) => f.id)).toEqual(['file-new']);
    expect(await files.delete('file-old')).toBe(false);
    await files.put(meta('file-old2', 3, { expiresAt: 1_000_600 }), bytes('file-old2'));
    now = 1_000_601;
    expect(await files.sweep()).toBe(1);
    expect(await files.sweep()).toBe(0);
    expect(await files.get('file-new')).toBeDefined();
  });

  it('delete removes both halves once; a second delete is false', async () => {
    const { files } = await open(Date.now);
    await files.put(meta('file-a', 1), bytes('file-a'));
    expect(await files.delete('file-a')).toBe(true);
    expect(await files.delete('file-a')).toBe(false);
    expect(await files.read('file-a')).toBeUndefined();
  });

  // Model-based: random puts, deletes, reads, lists, clock steps and sweeps; after every step the
  // store shows exactly the model's live files (nothing deleted or expired ever comes back). 40 runs
  // of up to 30 steps; a run takes milliseconds.
  it('matches a plain model over random operation sequences (property)', async () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('put' as const),
        id: fc.integer({ min: 0, max: 5 }),
        ttl: fc.option(fc.integer({ min: 1, max: 5 })),
      }),
      fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ kind: fc.constant('tick' as const), by: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ kind: fc.constant('sweep' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
        let now = 100;
        const { files } = await open(() => now);
        const model = new Map<string, number | null>(); // id → expiresAt
        let serial = 0;
        for (const o of ops) {
          if (o.kind === 'put') {
            const id = `file-${o.id}-${serial++}`;
            const expiresAt = o.ttl === null ? null : now + o.ttl;
            await files.put(meta(id, now, { expiresAt }), bytes(id));
            model.set(id, expiresAt);
          } else if (o.kind === 'delete') {
            const id = [...model.keys()][o.id];
            if (id === undefined) continue;
            const live = model.get(id) === null || (model.get(id) as number) >= now;
            expect(await files.delete(id)).toBe(live);
            model.delete(id);
          } else if (o.kind === 'tick') now += o.by;
          else await files.sweep();
          const live = [...model].filter(([, exp]) => exp === null || exp >= now).map(([id]) => id);
          const listed = (await files.list({ limit: 100, order: 'asc' }))?.data.map((f) => f.id) ?? [];
          expect(new Set(listed)).toEqual(new Set(live));
          for (const id of model.keys()) {
            expect((await files.read(id))?.bytes).toEqual(live.includes(id) ? bytes(id) : undefined);
          }
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('IdbStore files', () => {
  it('reads bytes only for content: retrieve and list open the metadata store alone', async () => {
    const { files } = await openIdbStore({ indexedDB: new IDBFactory() });
    await files.put(meta('file-a', 1), bytes('file-a'));
    const transaction = vi.spyOn(FakeDatabase.prototype, 'transaction');
    await files.get('file-a');
    await files.list({ limit: 10, order: 'desc' });
    expect(transaction.mock.calls.map((c) => c[0])).toEqual([['files'], ['files']]);
    await files.read('file-a');
    expect(transaction.mock.calls.at(-1)?.[0]).toEqual(['files', 'file_bytes']);
  });

  it('a put that overflows the quota is a 507 that stores neither metadata nor bytes', async () => {
    const factory = new IDBFactory();
    const { files } = await openIdbStore({ indexedDB: factory });
    failNthPut(2, 'abort'); // the bytes, after the metadata record
    await expect(files.put(meta('file-q', 1), bytes('file-q'))).rejects.toMatchObject({
      status: 507,
      code: 'storage_quota_exceeded',
    });
    vi.restoreAllMocks();
    expect(await files.get('file-q')).toBeUndefined();
    const db = await openRaw(factory, DB_NAME);
    const count = db.transaction('file_bytes').objectStore('file_bytes').count();
    expect(await new Promise((r) => (count.onsuccess = () => r(count.result)))).toBe(0);
    db.close();
  });

  it('upgrades a version-2 database in place: its responses stay, files work, store.sweep() sweeps them', async () => {
    const factory = new IDBFactory();
    const v2 = await openDatabase({ factory, version: 2 });
    await v2.put('responses', { ...makeStoredResponse('resp_old'), expiresAt: null });
    v2.close();
    let now = 5_000;
    const store = await openIdbStore({ indexedDB: factory, now: () => now });
    expect(await store.getResponse('resp_old')).toBeDefined();
    await store.files.put(meta('file-a', 1, { expiresAt: 6_000 }), bytes('file-a'));
    now = 6_001;
    await store.sweep();
    store.close();
    const db = await openRaw(factory, DB_NAME);
    expect(db.version).toBe(3);
    const tx = db.transaction(['files', 'file_bytes']);
    const filesStore = tx.objectStore('files');
    expect(filesStore.keyPath).toBe('file.id');
    expect([...filesStore.indexNames]).toEqual(['by_created', 'by_expiry']);
    expect(filesStore.index('by_created').keyPath).toEqual(['file.created_at', 'file.id']);
    const left = filesStore.count();
    expect(await new Promise((r) => (left.onsuccess = () => r(left.result)))).toBe(0);
    db.close();
  });
});
