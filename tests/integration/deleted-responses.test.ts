/**
 * Issue 15, class 10: deleting a response that is running stops it, and nothing it writes later
 * (its stream's end, its JSON end, its background end, an event-log flush) brings it back. Every run
 * mode, in Node against the core.
 */
import { describe, expect, it } from 'vitest';
import type { ResponseStore } from '../../src/store/types';
import { makeRig } from '../helpers/server';

const SLOW = '!delay 10 !words 150';

/** Records every store write made after `armed` is set, by response id. */
function watchWrites(store: ResponseStore) {
  const late: string[] = [];
  const state = { armed: false };
  const put = store.putResponse.bind(store);
  const append = store.appendEvents.bind(store);
  store.putResponse = async (record, opts) => {
    if (state.armed) late.push(`put ${record.response.id} ${record.response.status}`);
    return put(record, opts);
  };
  store.appendEvents = async (id, events) => {
    if (state.armed) late.push(`events ${id} ${events.length}`);
    return append(id, events);
  };
  return { late, state };
}

/** Polls `ok`; `ms` is a hang guard for a loaded machine, not a time budget. */
async function until(ok: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Reads SSE text from `reader` until `done`, or until `stop` matches what was read. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  stop: (text: string) => boolean = () => false,
): Promise<{ text: string; done: boolean }> {
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text, done: true };
    text += decoder.decode(value, { stream: true });
    if (stop(text)) return { text, done: false };
  }
}

/** Waits past the point where the run would have ended had it not been stopped. */
const pastTheEnd = () => new Promise((r) => setTimeout(r, 150 * 10 + 200));

describe('DELETE of a running response', () => {
  it('stops a direct stream, which ends with its terminal event, and nothing recreates it', async () => {
    const { call, store } = makeRig({ eventFlushMs: 5 });
    const writes = watchWrites(store);
    const res = await call('POST', '/responses', { model: 'scripted', input: SLOW, stream: true });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const head = await readUntil(reader, (t) => t.includes('response.output_text.delta'));
    const id = /"id":"(resp_[0-9a-f]+)"/.exec(head.text)?.[1] as string;

    const deleted = await call('DELETE', `/responses/${id}`);
    expect(await deleted.json()).toEqual({ id, object: 'response.deleted', deleted: true });
    writes.state.armed = true;
    const rest = await readUntil(reader);
    expect(rest.done).toBe(true);
    // Stopped by the delete, not by the run's end: its terminal event says cancelled, after fewer
    // deltas than the run's 150 (counted, not timed).
    const last = rest.text.trim().split('\n\n').at(-1) ?? '';
    expect(last).toContain('event: response.incomplete');
    expect(last).toContain('"status":"cancelled"');
    expect(`${head.text}${rest.text}`.split('event: response.output_text.delta').length - 1).toBeLessThan(
      150,
    );

    await pastTheEnd();
    expect((await call('GET', `/responses/${id}`)).status).toBe(404);
    expect(await store.getResponse(id)).toBeUndefined();
    expect(writes.late).toEqual([]);
  });

  it('stops a JSON run, which answers cancelled, and nothing recreates it', async () => {
    const { call, store } = makeRig({ eventFlushMs: 5 });
    const writes = watchWrites(store);
    const pending = call('POST', '/responses', { model: 'scripted', input: SLOW });
    let id = '';
    await until(async () => {
      id = (await store.listUnfinished())[0]?.response.id ?? '';
      return id !== '';
    });
    await new Promise((r) => setTimeout(r, 50));
    const deleted = await call('DELETE', `/responses/${id}`);
    expect(deleted.status).toBe(200);
    writes.state.armed = true;
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect((await answer.json()).status).toBe('cancelled');

    await pastTheEnd();
    expect((await call('GET', `/responses/${id}`)).status).toBe(404);
    expect(await store.getResponse(id)).toBeUndefined();
    expect(writes.late).toEqual([]);
  });

  for (const stream of [false, true]) {
    it(`stops a background run${stream ? ' (streamed)' : ''}: no final record, no event-log flush`, async () => {
      const { call, store } = makeRig({ eventFlushMs: 5 });
      const writes = watchWrites(store);
      const res = await call('POST', '/responses', {
        model: 'scripted',
        input: SLOW,
        background: true,
        stream,
      });
      let id = '';
      if (stream) {
        const head = await readUntil((res.body as ReadableStream<Uint8Array>).getReader(), (t) =>
          t.includes('response.output_text.delta'),
        );
        id = /"id":"(resp_[0-9a-f]+)"/.exec(head.text)?.[1] as string;
      } else {
        id = (await res.json()).id;
      }
      await until(async () => (await store.readEvents(id)).length > 5);
      const deleted = await call('DELETE', `/responses/${id}`);
      expect(deleted.status).toBe(200);
      writes.state.armed = true;

      await pastTheEnd();
      expect((await call('GET', `/responses/${id}`)).status).toBe(404);
      expect((await call('GET', `/responses/${id}?stream=true`)).status).toBe(404);
      expect(await store.getResponse(id)).toBeUndefined();
      expect(await store.readEvents(id)).toEqual([]);
      expect(writes.late).toEqual([]);
    });
  }

  it('still answers 404 for an unknown id, and leaves a store:false run alone', async () => {
    const { call } = makeRig();
    expect((await call('DELETE', '/responses/resp_nope')).status).toBe(404);
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: '!delay 5 !words 20',
      stream: true,
      store: false,
    });
    const text = await res.text();
    const id = /"id":"(resp_[0-9a-f]+)"/.exec(text)?.[1] as string;
    expect((await call('DELETE', `/responses/${id}`)).status).toBe(404);
    expect(text).toContain('event: response.completed');
  });
});
