/**
 * Issue 15, class 11: every stored event log ends with a terminal event. Recovery, which marks an
 * interrupted background response `failed`, appends `response.failed` to its log; a cancelled one
 * ends with `response.incomplete` carrying the `cancelled` response. In Node against the core.
 */
import { describe, expect, it } from 'vitest';
import { createResponsesServer } from '../../src/core';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import { MemoryStore } from '../../src/store/memory-store';
import type { ResponseStore } from '../../src/store/types';
import { makeRig, readSse } from '../helpers/server';
import { validateResponse, validateStreamEvent } from '../helpers/spec';

async function until(ok: () => Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A view of `store` whose writes stop once `dead.value` is set: the tab running the engine died. */
function dyingStore(store: ResponseStore) {
  const dead = { value: false };
  const view = Object.create(store) as ResponseStore;
  view.putResponse = (record, opts) => (dead.value ? Promise.resolve() : store.putResponse(record, opts));
  view.appendEvents = (id, events) => (dead.value ? Promise.resolve() : store.appendEvents(id, events));
  return { view, dead };
}

const TERMINAL = ['response.completed', 'response.incomplete', 'response.failed'];

describe('event logs end with a terminal event', () => {
  it('recovery appends response.failed to the log of a background response whose tab died', async () => {
    const store = new MemoryStore();
    const { view, dead } = dyingStore(store);
    const first = makeRig({ store: view, eventFlushMs: 5 });
    const created = await (
      await first.call('POST', '/responses', {
        model: 'scripted',
        input: '!delay 10 !words 100',
        background: true,
      })
    ).json();
    await until(async () => (await store.readEvents(created.id)).length > 10);
    dead.value = true;
    const logged = await store.readEvents(created.id);
    expect(TERMINAL).not.toContain(logged.at(-1)?.type);

    // The next leader's engine starts over the same store; nothing holds the dead run's lock.
    const next = createResponsesServer({ engine: new ScriptedEngine(), store, runLocks: noLocks() });
    expect(await next.recover()).toBe(1);
    const log = await store.readEvents(created.id);
    const last = log.at(-1) as { type: string; sequence_number: number; response: Record<string, unknown> };
    expect(last.type).toBe('response.failed');
    expect(last.sequence_number).toBe((logged.at(-1)?.sequence_number ?? 0) + 1);
    const stored = (await store.getResponse(created.id))?.response;
    expect(last.response).toEqual(stored);
    expect(stored?.status).toBe('failed');
    // The message it left open ends incomplete, as a live failure leaves it.
    expect(stored?.output.map((o) => (o as { status?: string }).status)).toEqual(['incomplete']);
    expect(validateResponse(stored)).toEqual([]);
    for (const e of log) expect(validateStreamEvent(e)).toEqual([]);

    // Its replay ends with that event too.
    const replay = await readSse(
      await next.fetch(new Request(`http://intab.test/v1/responses/${created.id}?stream=true`)),
    );
    expect(replay.at(-1)?.event).toBe('response.failed');
  });

  it('ends the log of a cancelled background response with response.incomplete, status cancelled', async () => {
    const { call, store } = makeRig({ eventFlushMs: 5 });
    const created = await (
      await call('POST', '/responses', { model: 'scripted', input: '!delay 10 !words 100', background: true })
    ).json();
    await until(async () => (await store.readEvents(created.id)).length > 5);
    const cancelled = await (await call('POST', `/responses/${created.id}/cancel`)).json();
    expect(cancelled.status).toBe('cancelled');
    const log = await store.readEvents(created.id);
    const last = log.at(-1) as { type: string; response: { status: string } };
    expect(last.type).toBe('response.incomplete');
    expect(last.response).toEqual(cancelled);
    // Every item that was added is done, as in any stream.
    const added = log.filter((e) => e.type === 'response.output_item.added').length;
    expect(log.filter((e) => e.type === 'response.output_item.done')).toHaveLength(added);
    for (const e of log) expect(validateStreamEvent(e)).toEqual([]);
  });

  it('ends a replayed log that stops short (its last batch was never written) with the stored end', async () => {
    const { call, store } = makeRig({ eventFlushMs: 5 });
    const append = store.appendEvents.bind(store);
    let drop = false;
    store.appendEvents = (id, events) => (drop ? Promise.resolve() : append(id, events));
    const created = await (
      await call('POST', '/responses', { model: 'scripted', input: '!delay 5 !words 40', background: true })
    ).json();
    await until(async () => (await store.readEvents(created.id)).length > 5);
    drop = true;
    await until(async () => (await store.getResponse(created.id))?.response.status === 'completed');
    const replay = await readSse(await call('GET', `/responses/${created.id}?stream=true`));
    expect(replay.at(-1)?.event).toBe('response.completed');
    expect(replay.at(-1)?.data.response).toEqual((await store.getResponse(created.id))?.response);
    const numbers = replay.map((f) => f.data.sequence_number);
    expect(numbers).toEqual(numbers.map((_, i) => i));
  });
});

function noLocks() {
  return { hold: () => {}, held: async () => new Set<string>() };
}
