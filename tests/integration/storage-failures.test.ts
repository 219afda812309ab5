/**
 * Issue 15, classes 12 and 13: a write that fails at the end of a run is never left ambiguous. When
 * the final record cannot be written (a full disk), the client is told and the record ends `failed`,
 * never `in_progress`; when the conversation append fails, the response fails loudly (its HTTP
 * status, or `response.failed`) and the conversation gets nothing. In Node against the core.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/common/api-error';
import { toStorageError } from '../../src/store/storage-error';
import type { ResponseStore } from '../../src/store/types';
import { makeRig, readSse } from '../helpers/server';
import { validateResponse, validateStreamEvent } from '../helpers/spec';

const quota = () => toStorageError(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));

/** Fails the final (durable) record writes of a run: `times` of them, or all with Infinity. */
function failFinalWrites(store: ResponseStore, times = 1) {
  const put = store.putResponse.bind(store);
  let left = times;
  store.putResponse = async (record, opts) => {
    if (opts?.durable && left > 0) {
      left--;
      throw quota();
    }
    return put(record, opts);
  };
}

async function until(ok: () => Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const idOf = (frames: { data: Record<string, unknown> }[]) =>
  String((frames[0]?.data.response as { id?: string } | undefined)?.id);

describe('the final write fails (class 12)', () => {
  it('stream: the client gets an error event, and the record ends failed with the storage code', async () => {
    const { call, store } = makeRig();
    failFinalWrites(store);
    const frames = await readSse(
      await call('POST', '/responses', { model: 'scripted', input: '!words 30', stream: true }),
    );
    expect(frames.slice(-2).map((f) => f.event)).toEqual(['response.completed', 'error']);
    expect(frames.at(-1)?.data).toMatchObject({ code: 'storage_quota_exceeded' });
    for (const f of frames) expect(validateStreamEvent(f.data)).toEqual([]);
    const stored = (await store.getResponse(idOf(frames)))?.response;
    expect(stored?.status).toBe('failed');
    expect(stored?.error?.code).toBe('storage_quota_exceeded');
    expect(stored?.error?.message).toMatch(/could not be stored/);
    expect(validateResponse(stored)).toEqual([]);
  });

  it('JSON: the client gets the 507, and the record ends failed', async () => {
    const { call, store } = makeRig();
    failFinalWrites(store);
    const res = await call('POST', '/responses', { model: 'scripted', input: 'hello' });
    expect(res.status).toBe(507);
    expect((await res.json()).error.code).toBe('storage_quota_exceeded');
    const [record] = (await store.listRecent(10)).responses;
    expect(record?.status).toBe('failed');
    expect(record?.error?.code).toBe('storage_quota_exceeded');
  });

  it('background: pollers see failed, not in_progress', async () => {
    const { call, store } = makeRig({ eventFlushMs: 5 });
    failFinalWrites(store);
    const created = await (
      await call('POST', '/responses', { model: 'scripted', input: '!words 20', background: true })
    ).json();
    await until(async () => (await store.getResponse(created.id))?.response.status === 'failed');
    const polled = await (await call('GET', `/responses/${created.id}`)).json();
    expect(polled.error.code).toBe('storage_quota_exceeded');
  });

  it('leaves no record at all when even the failed one cannot be written', async () => {
    const { call, store } = makeRig();
    failFinalWrites(store, Number.POSITIVE_INFINITY);
    const frames = await readSse(
      await call('POST', '/responses', { model: 'scripted', input: '!words 5', stream: true }),
    );
    expect(frames.at(-1)?.event).toBe('error');
    expect(await store.getResponse(idOf(frames))).toBeUndefined();
    expect(await store.listUnfinished()).toEqual([]);
  });
});

describe('the conversation append fails (class 13)', () => {
  it('JSON: answers with the append error instead of 200, and the conversation gets nothing', async () => {
    const { call, store } = makeRig();
    const conv = await (await call('POST', '/conversations', {})).json();
    store.appendConversationItems = async () => {
      throw quota();
    };
    const res = await call('POST', '/responses', { model: 'scripted', input: 'hi', conversation: conv.id });
    expect(res.status).toBe(507);
    expect((await res.json()).error.code).toBe('storage_quota_exceeded');
    const items = await (await call('GET', `/conversations/${conv.id}/items`)).json();
    expect(items.data).toEqual([]);
    const [record] = (await store.listRecent(10)).responses;
    expect(record?.status).toBe('failed');
    expect(record?.error?.code).toBe('storage_quota_exceeded');
  });

  it('JSON: a conversation deleted while the model ran is a 404, not a silent 200', async () => {
    const { call } = makeRig();
    const conv = await (await call('POST', '/conversations', {})).json();
    const pending = call('POST', '/responses', {
      model: 'scripted',
      input: '!delay 20 !words 10',
      conversation: conv.id,
    });
    await new Promise((r) => setTimeout(r, 60));
    expect((await call('DELETE', `/conversations/${conv.id}`)).status).toBe(200);
    const res = await pending;
    expect(res.status).toBe(404);
    expect((await res.json()).error.message).toMatch(conv.id);
  });

  it('stream: ends with response.failed carrying the error, never completed', async () => {
    const { call, store } = makeRig();
    const conv = await (await call('POST', '/conversations', {})).json();
    store.appendConversationItems = async () => {
      throw new ApiError(507, 'server_error', 'storage_quota_exceeded', null, 'The browser storage is full.');
    };
    const frames = await readSse(
      await call('POST', '/responses', {
        model: 'scripted',
        input: 'hi',
        stream: true,
        conversation: conv.id,
      }),
    );
    const events = frames.map((f) => f.event);
    expect(events).not.toContain('response.completed');
    expect(events.at(-1)).toBe('response.failed');
    const failed = frames.at(-1)?.data.response as { error: { code: string }; output: { status: string }[] };
    expect(failed.error.code).toBe('storage_quota_exceeded');
    // The output itself was done; only recording it failed.
    expect(failed.output.map((o) => o.status)).toEqual(['completed']);
    for (const f of frames) expect(validateStreamEvent(f.data)).toEqual([]);
    expect((await store.getResponse(idOf(frames)))?.response).toEqual(failed);
    const items = await (await call('GET', `/conversations/${conv.id}/items`)).json();
    expect(items.data).toEqual([]);
  });
});
