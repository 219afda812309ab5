/**
 * `/v1/files` through the official SDK (issue 22, Files API): upload (multipart, `toFile`),
 * retrieve, list (pages, order, purpose), content (the same bytes), delete (then OpenAI's 404),
 * `expires_after`, the body cap (413), the storage quota (507), and 400s with `param`.
 */
import { APIError, NotFoundError, toFile } from 'openai';
import type { FileObject } from 'openai/resources/files';
import { describe, expect, it } from 'vitest';
import { deleteFile } from '../../src/core/files';
import { MemoryStore } from '../../src/store/memory-store';
import { toStorageError } from '../../src/store/storage-error';
import { makeRig } from '../helpers/server';

const bytesOf = (text: string) => new TextEncoder().encode(text);
const upload = (name: string, text: string, type = 'text/plain') => toFile(bytesOf(text), name, { type });

/** A rig whose server and store share one clock the test moves. */
function clockRig(start = 1_750_000_000_000) {
  const clock = { now: start };
  const now = () => clock.now;
  const store = new MemoryStore({ now });
  return { clock, ...makeRig({ now, store }), store };
}

async function apiError(p: Promise<unknown>): Promise<APIError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof APIError) return err;
    throw err;
  }
  throw new Error('expected an API error');
}

describe('files: create, retrieve, content, delete', () => {
  it('uploads multipart and answers a FileObject field for field, with an OpenAI-like id', async () => {
    const { client } = makeRig();
    const file = await client.files.create({
      file: await upload('notes.txt', 'hello files'),
      purpose: 'user_data',
    });
    expect(Object.keys(file).sort()).toEqual([
      'bytes',
      'created_at',
      'filename',
      'id',
      'object',
      'purpose',
      'status',
    ]);
    expect(file).toMatchObject({
      object: 'file',
      bytes: 11,
      filename: 'notes.txt',
      purpose: 'user_data',
      status: 'processed',
    });
    expect(file.id).toMatch(/^file-[A-Za-z0-9]{22,}$/);
    expect(Number.isInteger(file.created_at)).toBe(true);
    expect(await client.files.retrieve(file.id)).toEqual(file);
  });

  it('gives back the same bytes, with the uploaded type, as data that is never rendered', async () => {
    const { client } = makeRig();
    const raw = Uint8Array.from({ length: 256 }, (_, i) => i);
    const file = await client.files.create({ file: await toFile(raw, 'all.bin'), purpose: 'assistants' });
    const res = await client.files.content(file.id);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(raw);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    const html = await client.files.create({
      file: await upload('x.html', '<script>1</script>', 'text/html'),
      purpose: 'user_data',
    });
    const page = await client.files.content(html.id);
    // Served as bytes that never run or render (issue 38 §3.4), whatever type they were uploaded as.
    expect(page.headers.get('content-type')).toBe('application/octet-stream');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('content-security-policy')).toMatch(/^sandbox/);
    expect(page.headers.get('content-disposition')).toMatch(/^attachment/);
  });

  it('never serves an uploaded script with a type that runs (a same-origin <script> would pass script-src self)', async () => {
    const { client } = makeRig();
    for (const type of [
      'text/javascript',
      'application/javascript; charset=utf-8',
      'text/css',
      'image/svg+xml',
      'application/wasm',
      'TEXT/HTML',
    ]) {
      const file = await client.files.create({
        file: await upload('x', 'alert(1)', type),
        purpose: 'user_data',
      });
      const res = await client.files.content(file.id);
      expect(res.headers.get('content-type'), type).toBe('application/octet-stream');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text()).toBe('alert(1)');
    }
    for (const [type, served] of [
      ['text/plain; charset=utf-8', 'text/plain'],
      ['image/png', 'image/png'],
      ['application/pdf', 'application/pdf'],
    ]) {
      const file = await client.files.create({ file: await upload('y', 'data', type), purpose: 'user_data' });
      expect((await client.files.content(file.id)).headers.get('content-type'), type).toBe(served);
    }
  });

  it('deletes, then every route says 404 as OpenAI words it', async () => {
    const { client } = makeRig();
    const file = await client.files.create({ file: await upload('a.txt', 'a'), purpose: 'user_data' });
    expect(await client.files.delete(file.id)).toEqual({ id: file.id, object: 'file', deleted: true });
    for (const again of [
      client.files.retrieve(file.id),
      client.files.content(file.id),
      client.files.delete(file.id),
    ]) {
      const err = await apiError(again);
      expect(err).toBeInstanceOf(NotFoundError);
      expect(err.error).toMatchObject({
        message: `No such File object: ${file.id}`,
        type: 'invalid_request_error',
        param: 'id',
        code: null,
      });
    }
    expect((await client.files.list()).data).toEqual([]);
  });

  it('runs the onFileDeleted hook (vector stores forget the file) only for a file that was deleted', async () => {
    const store = new MemoryStore();
    const forgotten: string[] = [];
    const deps = {
      store,
      now: Date.now,
      maxBodyBytes: 1 << 20,
      onFileDeleted: async (id: string) => void forgotten.push(id),
    };
    const meta = {
      file: {
        id: 'file-x',
        object: 'file',
        bytes: 1,
        created_at: 1,
        filename: 'x',
        purpose: 'user_data',
        status: 'processed',
      } as FileObject,
      mimeType: 'text/plain',
      expiresAt: null,
    };
    await store.files.put(meta, bytesOf('x'));
    expect((await deleteFile(deps, 'file-x')).status).toBe(200);
    await expect(deleteFile(deps, 'file-x')).rejects.toMatchObject({ status: 404 });
    expect(forgotten).toEqual(['file-x']);
  });
});

describe('files: list', () => {
  it('pages through every file, newest first by default, oldest first with order=asc, by purpose', async () => {
    const { client, clock } = clockRig();
    const made: FileObject[] = [];
    for (let i = 0; i < 7; i++) {
      // Two uploads per second: ties on created_at still list in one stable order.
      if (i % 2 === 0) clock.now += 1000;
      const purpose = i % 3 === 0 ? 'assistants' : 'user_data';
      made.push(await client.files.create({ file: await upload(`f${i}.txt`, `file ${i}`), purpose }));
    }
    const seen: string[] = [];
    for await (const f of client.files.list({ limit: 2 })) seen.push(f.id);
    const newestFirst = [...made].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1));
    expect(seen).toEqual(newestFirst.map((f) => f.id));
    const asc: string[] = [];
    for await (const f of client.files.list({ limit: 3, order: 'asc' })) asc.push(f.id);
    expect(asc).toEqual([...seen].reverse());
    const first = await client.files.list({ limit: 2, order: 'asc' });
    expect(first.data.map((f) => f.id)).toEqual(asc.slice(0, 2));
    expect(first.has_more).toBe(true);
    // OpenAI's default page here is 10,000 files: one page holds them all.
    const all = await client.files.list();
    expect(all.data.map((f) => f.id)).toEqual(seen);
    expect(all.has_more).toBe(false);
    const assistants = await client.files.list({ purpose: 'assistants' });
    expect(assistants.data.map((f) => f.filename).sort()).toEqual(['f0.txt', 'f3.txt', 'f6.txt']);
    expect(assistants.has_more).toBe(false);
  });

  it('refuses bad list parameters with their param', async () => {
    const { call } = makeRig();
    for (const [query, param] of [
      ['limit=0', 'limit'],
      ['limit=10001', 'limit'],
      ['limit=2.5', 'limit'],
      ['order=up', 'order'],
      ['after=file-nope', 'after'],
    ]) {
      const res = await call('GET', `/files?${query}`);
      expect([400, 404]).toContain(res.status);
      expect((await res.json()).error.param).toBe(param);
    }
  });
});

describe('files: expires_after', () => {
  it('sets expires_at from created_at; an expired file reads as missing and is swept', async () => {
    const { client, clock, store } = clockRig();
    const file = await client.files.create({
      file: await upload('short.txt', 'soon gone'),
      purpose: 'user_data',
      expires_after: { anchor: 'created_at', seconds: 3600 },
    });
    expect(file.expires_at).toBe(file.created_at + 3600);
    expect((await client.files.retrieve(file.id)).expires_at).toBe(file.expires_at);
    clock.now += 3600 * 1000;
    expect((await client.files.content(file.id)).status).toBe(200);
    clock.now += 1001;
    expect((await apiError(client.files.retrieve(file.id))).status).toBe(404);
    expect((await apiError(client.files.content(file.id))).status).toBe(404);
    expect((await client.files.list()).data).toEqual([]);
    expect(await store.files.sweep()).toBe(1);
  });

  it('batch files expire after 30 days by default; others never', async () => {
    const { client } = makeRig();
    const batch = await client.files.create({ file: await upload('b.jsonl', '{}'), purpose: 'batch' });
    expect(batch.expires_at).toBe(batch.created_at + 2_592_000);
    const kept = await client.files.create({ file: await upload('k.txt', 'k'), purpose: 'vision' });
    expect(kept.expires_at).toBeUndefined();
  });

  it('refuses a bad purpose or expires_after with its param, storing nothing', async () => {
    const { client } = makeRig();
    const cases: [Record<string, unknown>, string][] = [
      [{ purpose: 'fun' }, 'purpose'],
      [{ purpose: undefined }, 'purpose'],
      [
        { purpose: 'user_data', expires_after: { anchor: 'created_at', seconds: 3599 } },
        'expires_after.seconds',
      ],
      [
        { purpose: 'user_data', expires_after: { anchor: 'created_at', seconds: 2_592_001 } },
        'expires_after.seconds',
      ],
      [
        { purpose: 'user_data', expires_after: { anchor: 'created_at', seconds: 'soon' } },
        'expires_after.seconds',
      ],
      [
        { purpose: 'user_data', expires_after: { anchor: 'last_active_at', seconds: 3600 } },
        'expires_after.anchor',
      ],
      [{ purpose: 'user_data', expires_after: { seconds: 3600 } }, 'expires_after.anchor'],
      [{ purpose: 'user_data', extra: 'x' }, 'extra'],
    ];
    for (const [params, param] of cases) {
      const err = await apiError(
        client.files.create({ file: await upload('a.txt', 'a'), ...params } as never),
      );
      expect(err.status, param).toBe(400);
      expect(err.error).toMatchObject({ type: 'invalid_request_error', param });
    }
    const missing = await apiError(client.files.create({ purpose: 'user_data' } as never));
    expect(missing.error).toMatchObject({ param: 'file', code: 'missing_required_parameter' });
    expect((await client.files.list()).data).toEqual([]);
  });
});

describe('files: limits', () => {
  it('caps an upload at maxBodyBytes (413) and refuses a JSON body (400)', async () => {
    const { client, call } = makeRig({ maxBodyBytes: 4096 });
    const err = await apiError(
      client.files.create({ file: await upload('big.txt', 'x'.repeat(5000)), purpose: 'user_data' }),
    );
    expect(err.status).toBe(413);
    const json = await call('POST', '/files', { purpose: 'user_data' });
    expect(json.status).toBe(400);
    expect((await json.json()).error.message).toMatch(/expected multipart\/form-data/);
    expect((await client.files.list()).data).toEqual([]);
  });

  it('a full store is a 507 storage_quota_exceeded that says the file was not saved', async () => {
    const store = new MemoryStore();
    store.files.put = async () => {
      throw toStorageError(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
    };
    const { client } = makeRig({ store });
    const err = await apiError(
      client.files.create({ file: await upload('a.txt', 'abc'), purpose: 'user_data' }),
    );
    expect(err.status).toBe(507);
    expect(err.error).toMatchObject({ code: 'storage_quota_exceeded' });
    expect(err.message).toMatch(/the file \(3 bytes\) could not be saved/);
  });
});
