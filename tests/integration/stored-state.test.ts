import OpenAI from 'openai';
import { toResponseInputItems } from 'openai/lib/responses/ResponseInputItems';
import { describe, expect, it } from 'vitest';
import { toStorageError } from '../../src/store/storage-error';
import { makeRig, readSse } from '../helpers/server';
import { validateResponse, validateStreamEvent } from '../helpers/spec';

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('background mode, cancel and replay', () => {
  it('returns at once and completes in the background, polled with retrieve', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: '!delay 5 !words 10',
      background: true,
    });
    expect(['queued', 'in_progress']).toContain(r.status);
    expect(r.background).toBe(true);
    const done = await until(
      () => client.responses.retrieve(r.id),
      (x) => x.status === 'completed',
    );
    expect(done.status).toBe('completed');
    expect(done.output_text).toBe('w1 w2 w3 w4 w5 w6 w7 w8 w9 w10');
    expect(validateResponse(done)).toEqual([]);
  });

  it('refuses background with store:false', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: 'x',
      background: true,
      store: false,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.param).toBe('background');
  });

  it('cancels a background response within one token', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: '!delay 30 !words 100',
      background: true,
    });
    await until(
      () => client.responses.retrieve(r.id),
      (x) => x.status === 'in_progress',
    );
    await new Promise((res) => setTimeout(res, 100));
    const cancelled = await client.responses.cancel(r.id);
    expect(cancelled.status).toBe('cancelled');
    const text = (await client.responses.retrieve(r.id)).output_text;
    expect(text.split(' ').length).toBeLessThan(100);
    await new Promise((res) => setTimeout(res, 120));
    const later = await client.responses.retrieve(r.id);
    expect(later.status).toBe('cancelled');
    expect(later.output_text).toBe(text);
    // Cancelling again is a no-op; a non-background response cannot be cancelled.
    expect((await client.responses.cancel(r.id)).status).toBe('cancelled');
    const plain = await client.responses.create({ model: 'scripted', input: 'x' });
    await expect(client.responses.cancel(plain.id)).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('resumes a background stream with starting_after, yielding exactly the missing events', async () => {
    const { client, call } = makeRig();
    const all = await readSse(
      await call('POST', '/responses', {
        model: 'scripted',
        input: '!delay 2 !words 30',
        background: true,
        stream: true,
      }),
    );
    const id = String((all[0]?.data.response as { id?: string } | undefined)?.id);
    const n = 7;
    const resumed = await readSse(await call('GET', `/responses/${id}?stream=true&starting_after=${n}`));
    expect(resumed.map((f) => f.data)).toEqual(all.slice(n + 1).map((f) => f.data));
    for (const f of resumed) expect(validateStreamEvent(f.data)).toEqual([]);
    // The SDK's own resume path.
    const stream = client.responses.stream({ response_id: id, starting_after: n });
    const final = await stream.finalResponse();
    expect(final.output_text.split(' ')).toHaveLength(30);
  });

  it('tails a running background response live', async () => {
    const { client, call } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: '!delay 10 !words 20',
      background: true,
    });
    const frames = await readSse(await call('GET', `/responses/${r.id}?stream=true`));
    expect(frames.map((f) => f.data.sequence_number)).toEqual(frames.map((_, i) => i));
    expect(frames.at(-1)?.data.type).toBe('response.completed');
  });
});

describe('input items and token counts', () => {
  it('lists input items with cursor pagination, desc by default', async () => {
    const { client } = makeRig();
    const input = Array.from({ length: 5 }, (_, i) => ({ role: 'user' as const, content: `m${i}` }));
    const r = await client.responses.create({ model: 'scripted', input });
    const page = await client.responses.inputItems.list(r.id, { limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.has_more).toBe(true);
    const texts: string[] = [];
    for await (const item of client.responses.inputItems.list(r.id, { limit: 2, order: 'asc' })) {
      if (item.type === 'message') texts.push((item.content[0] as { text: string }).text);
    }
    expect(texts).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    const desc = await client.responses.inputItems.list(r.id);
    expect(
      desc.data.map((i) => (i.type === 'message' ? (i.content[0] as { text: string }).text : '')),
    ).toEqual(['m4', 'm3', 'm2', 'm1', 'm0']);
  });

  it('counts input tokens as create would see them', async () => {
    const { client } = makeRig();
    const res = await client.responses.inputTokens.count({
      model: 'scripted',
      instructions: 'one two',
      input: 'three four five',
    });
    expect(res).toEqual({ object: 'response.input_tokens', input_tokens: 5 });
    const first = await client.responses.create({ model: 'scripted', input: 'a b' });
    const chained = await client.responses.inputTokens.count({
      model: 'scripted',
      previous_response_id: first.id,
      input: 'c',
    });
    // a b + "You said: a b" + c
    expect(chained.input_tokens).toBe(2 + 4 + 1);
  });
});

describe('compaction', () => {
  it('keeps user messages, folds history into one compaction item, and expands it as input', async () => {
    const { client, call } = makeRig();
    const first = await client.responses.create({ model: 'scripted', input: 'one' });
    const second = await client.responses.create({
      model: 'scripted',
      previous_response_id: first.id,
      input: 'two',
    });
    const compacted = await client.responses.compact({ model: 'scripted', previous_response_id: second.id });
    expect(compacted.object).toBe('response.compaction');
    expect(compacted.output.map((o) => o.type)).toEqual(['message', 'message', 'compaction']);
    expect(compacted.usage.input_tokens).toBe(1 + 3 + 1 + 3);
    const next = await client.responses.create({
      model: 'scripted',
      input: [...toResponseInputItems(compacted.output), { role: 'user', content: '!transcript' }],
    });
    expect(JSON.parse(next.output_text)).toEqual([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'You said: one' },
      { role: 'user', content: 'two' },
      { role: 'assistant', content: 'You said: two' },
      { role: 'user', content: '!transcript' },
    ]);
    const tampered = await call('POST', '/responses', {
      model: 'scripted',
      input: [{ type: 'compaction', encrypted_content: 'garbage' }],
    });
    expect(tampered.status).toBe(400);
    expect((await tampered.json()).error.param).toBe('input[0].encrypted_content');
  });
});

describe('recovery after the running tab died', () => {
  it('marks unfinished responses failed unless their run lock is still held', async () => {
    const held = new Set<string>();
    const runLocks = {
      hold: (id: string, until: Promise<unknown>) => {
        held.add(id);
        void until.finally(() => held.delete(id));
      },
      held: async () => new Set(held),
    };
    const { client, server, store } = makeRig({ runLocks });
    const running = await client.responses.create({
      model: 'scripted',
      input: '!delay 20 !words 50',
      background: true,
    });
    const dead = await client.responses.create({ model: 'scripted', input: 'x' });
    // Simulate a tab that died mid-run: its record stays in_progress and nobody holds its lock.
    const rec = await store.getResponse(dead.id);
    await store.putResponse({
      ...(rec as NonNullable<typeof rec>),
      response: { ...(rec as NonNullable<typeof rec>).response, status: 'in_progress' },
    });
    expect(await server.recover()).toBe(1);
    const failed = await client.responses.retrieve(dead.id);
    expect(failed.status).toBe('failed');
    expect(failed.error?.message).toMatch(/stopped before it finished: its tab closed/);
    expect((await client.responses.retrieve(running.id)).status).not.toBe('failed');
    await client.responses.cancel(running.id);
  });
});

describe('event logs', () => {
  it('keeps no event log for a direct stream, and replays it rebuilt from the stored response', async () => {
    const { call, store } = makeRig();
    let appends = 0;
    const append = store.appendEvents.bind(store);
    store.appendEvents = (id, events) => {
      appends++;
      return append(id, events);
    };
    const frames = await readSse(
      await call('POST', '/responses', { model: 'scripted', input: '!words 50', stream: true }),
    );
    const id = String((frames[0]?.data.response as { id?: string } | undefined)?.id);
    expect(appends).toBe(0);
    expect((await call('GET', `/responses/${id}`)).status).toBe(200);
    const replay = await readSse(await call('GET', `/responses/${id}?stream=true`));
    expect(appends).toBe(0);
    expect(replay.at(-1)?.data.response).toEqual(frames.at(-1)?.data.response);
  });
});

describe('include on GET routes', () => {
  it('accepts the values intab honours and rejects the rest, naming include[i]', async () => {
    const { client, call } = makeRig();
    const r = await client.responses.create({ model: 'scripted', input: 'x' });
    const ok = await client.responses.retrieve(r.id, { include: ['message.output_text.logprobs'] });
    expect(ok.id).toBe(r.id);
    const items = await client.responses.inputItems.list(r.id, {
      include: ['message.input_image.image_url'],
    });
    expect(items.data).toHaveLength(1);
    const hosted = await call(
      'GET',
      `/responses/${r.id}?include[]=message.output_text.logprobs&include[]=web_search_call.results`,
    );
    expect(hosted.status).toBe(400);
    expect((await hosted.json()).error).toMatchObject({ param: 'include[1]', code: 'unsupported_value' });
    const bogus = await call('GET', `/responses/${r.id}/input_items?include=bogus`);
    expect(bogus.status).toBe(400);
    expect((await bogus.json()).error).toMatchObject({ param: 'include[0]', code: 'invalid_value' });
  });
});

describe('long non-streaming requests and storage failures', () => {
  it('sends headers early past jsonHoldMs and the JSON when it is ready', async () => {
    const { call, store } = makeRig({ jsonHoldMs: 30 });
    const res = await call('POST', '/responses', { model: 'scripted', input: '!delay 150 !words 5' });
    expect(res.status).toBe(200);
    // The headers came while the model was still generating: the stored response is in progress.
    const [running] = await store.listUnfinished();
    expect(running?.response.status).toBe('in_progress');
    const body = await res.json();
    expect(body.id).toBe(running?.response.id);
    expect(body.status).toBe('completed');
    expect(body.output[0].content[0].text).toBe('w1 w2 w3 w4 w5');
  });

  it('turns a full browser storage into a clear 507 and keeps serving', async () => {
    const { call, store, client } = makeRig();
    const kept = await client.responses.create({ model: 'scripted', input: 'before' });
    const put = store.putResponse.bind(store);
    store.putResponse = async () => {
      throw toStorageError(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
    };
    const res = await call('POST', '/responses', { model: 'scripted', input: 'x' });
    expect(res.status).toBe(507);
    expect((await res.json()).error).toMatchObject({ type: 'server_error', code: 'storage_quota_exceeded' });
    store.putResponse = put;
    expect((await client.responses.retrieve(kept.id)).output_text).toBe('You said: before');
    expect((await client.responses.create({ model: 'scripted', input: 'after' })).status).toBe('completed');
  });
});
