import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { makeRig } from '../helpers/server';

const textOf = (item: { type: string; content?: unknown }) =>
  item.type === 'message' ? ((item.content as { text?: string }[])[0]?.text ?? '') : item.type;

describe('conversations through the openai SDK', () => {
  it('creates, retrieves, updates and deletes a conversation', async () => {
    const { client } = makeRig();
    const conv = await client.conversations.create({
      metadata: { topic: 'demo' },
      items: [{ role: 'user', content: 'seed' }],
    });
    expect(conv.id).toMatch(/^conv_/);
    expect(conv.object).toBe('conversation');
    expect(await client.conversations.retrieve(conv.id)).toEqual(conv);
    const updated = await client.conversations.update(conv.id, { metadata: { topic: 'changed' } });
    expect(updated.metadata).toEqual({ topic: 'changed' });
    const del = await client.conversations.delete(conv.id);
    expect(del).toMatchObject({ id: conv.id, object: 'conversation.deleted', deleted: true });
    await expect(client.conversations.retrieve(conv.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('responses on a conversation read its history and append input and output in order', async () => {
    const { client } = makeRig();
    const conv = await client.conversations.create({});
    const first = await client.responses.create({ model: 'scripted', conversation: conv.id, input: 'one' });
    expect(first.conversation).toEqual({ id: conv.id });
    await client.responses.create({ model: 'scripted', conversation: { id: conv.id }, input: 'two' });
    const third = await client.responses.create({
      model: 'scripted',
      conversation: conv.id,
      input: '!transcript',
    });
    expect(JSON.parse(third.output_text).map((m: { content: string }) => m.content)).toEqual([
      'one',
      'You said: one',
      'two',
      'You said: two',
      '!transcript',
    ]);
    const texts: string[] = [];
    for await (const item of client.conversations.items.list(conv.id, { order: 'asc', limit: 2 }))
      texts.push(textOf(item));
    expect(texts.slice(0, 4)).toEqual(['one', 'You said: one', 'two', 'You said: two']);
    expect(texts).toHaveLength(6);
  });

  it('never interleaves two concurrent responses on one conversation', async () => {
    const { client } = makeRig();
    const conv = await client.conversations.create({});
    await Promise.all([
      client.responses.create({ model: 'scripted', conversation: conv.id, input: '!delay 3 !words 5' }),
      client.responses.create({ model: 'scripted', conversation: conv.id, input: '!delay 2 !words 3' }),
    ]);
    const page = await client.conversations.items.list(conv.id, { order: 'asc', limit: 100 });
    const texts = page.data.map(textOf);
    expect(texts).toHaveLength(4);
    // Each input is followed directly by its own output.
    for (const i of [0, 2]) {
      const n = Number(/!words (\d)/.exec(texts[i] as string)?.[1]);
      expect((texts[i + 1] as string).split(' ')).toHaveLength(n);
    }
  });

  it('adds, gets and deletes items', async () => {
    const { client } = makeRig();
    const conv = await client.conversations.create({});
    const added = await client.conversations.items.create(conv.id, {
      items: [
        { type: 'message', role: 'user', content: 'a' },
        { type: 'message', role: 'user', content: 'b' },
      ],
    });
    expect(added.data).toHaveLength(2);
    const id = added.data[0]?.id as string;
    const got = await client.conversations.items.retrieve(id, { conversation_id: conv.id });
    expect(textOf(got)).toBe('a');
    const after = await client.conversations.items.delete(id, { conversation_id: conv.id });
    expect(after.id).toBe(conv.id);
    await expect(
      client.conversations.items.retrieve(id, { conversation_id: conv.id }),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('rejects conversation together with previous_response_id, and more than 20 items', async () => {
    const { call, client } = makeRig();
    const conv = await client.conversations.create({});
    const r = await client.responses.create({ model: 'scripted', input: 'x' });
    const both = await call('POST', '/responses', {
      model: 'scripted',
      input: 'x',
      conversation: conv.id,
      previous_response_id: r.id,
    });
    expect(both.status).toBe(400);
    const tooMany = await call('POST', `/conversations/${conv.id}/items`, {
      items: Array.from({ length: 21 }, () => ({ role: 'user', content: 'x' })),
    });
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).error.param).toBe('items');
    const unknown = await call('POST', '/responses', {
      model: 'scripted',
      input: 'x',
      conversation: 'conv_nope',
    });
    expect(unknown.status).toBe(404);
  });

  it('resolves item_reference inputs from stored items', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({ model: 'scripted', input: 'remember this' });
    const msgId = r.output[0]?.id as string;
    const next = await client.responses.create({
      model: 'scripted',
      input: [
        { type: 'item_reference', id: msgId },
        { role: 'user', content: '!transcript' },
      ],
    });
    expect(JSON.parse(next.output_text)[0]).toEqual({
      role: 'assistant',
      content: 'You said: remember this',
    });
  });
});

describe('GET /v1/intab/storage', () => {
  it('lists stored responses and conversations, newest first, for storage views', async () => {
    const { client, call } = makeRig();
    const conv = await client.conversations.create({});
    const r = await client.responses.create({ model: 'scripted', input: 'x', conversation: conv.id });
    const body = await (await call('GET', '/intab/storage?limit=5')).json();
    expect(body.object).toBe('intab.storage');
    expect(body.responses[0]).toMatchObject({
      id: r.id,
      status: 'completed',
      model: 'scripted',
      conversation: { id: conv.id },
    });
    expect(body.conversations.map((c: { id: string }) => c.id)).toEqual([conv.id]);
    expect((await call('GET', '/intab/storage?limit=0')).status).toBe(400);
  });
});
