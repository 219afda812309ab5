/**
 * Every route answers without `/v1` too, for OpenAI-compatible clients configured with the bare
 * origin as `baseURL`: the official SDK pointed at `http://intab.test` works route by route.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { makeRig } from '../helpers/server';

function rootClient() {
  const { server } = makeRig();
  const paths: string[] = [];
  const client = new OpenAI({
    apiKey: 'intab-test',
    baseURL: 'http://intab.test',
    maxRetries: 0,
    fetch: (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      paths.push(`${request.method} ${new URL(request.url).pathname}`);
      return server.fetch(request);
    },
  });
  return { client, paths };
}

describe('routes without /v1', () => {
  it('serves models, responses, chat completions, embeddings and conversations', async () => {
    const { client, paths } = rootClient();
    expect((await client.models.list()).data.map((m) => m.id)).toContain('scripted');
    expect((await client.models.retrieve('scripted')).id).toBe('scripted');
    const response = await client.responses.create({ model: 'scripted', input: 'root' });
    expect(response.output_text).toBe('You said: root');
    expect((await client.responses.retrieve(response.id)).id).toBe(response.id);
    const chat = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'root' }],
    });
    expect(chat.choices[0]?.message.content).toBe('You said: root');
    const stream = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'streamed' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('You said: streamed');
    const embedding = await client.embeddings.create({ model: 'scripted', input: 'root' });
    expect(embedding.data[0]?.embedding).toHaveLength(64);
    const conversation = await client.conversations.create({ items: [{ role: 'user', content: 'hi' }] });
    expect((await client.conversations.items.list(conversation.id)).data).toHaveLength(1);
    expect(paths.every((p) => !p.includes('/v1'))).toBe(true);
    expect(paths).toContain('POST /chat/completions');
  });

  it('answers an unknown path with OpenAI’s 404, with or without /v1', async () => {
    const { server } = makeRig();
    for (const path of ['/nothing', '/v1/nothing', '/v1/v1/models', '/v1models']) {
      const res = await server.fetch(new Request(`http://intab.test${path}`));
      expect(res.status).toBe(404);
      expect((await res.json()).error.message).toBe(`Invalid URL (GET ${path})`);
    }
  });
});
