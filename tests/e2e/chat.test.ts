/**
 * Chat Completions and embeddings answered from inside the tab, through the real service worker in
 * Chromium: JSON, the `data:`-only SSE wire ending with `[DONE]`, errors with their HTTP status, and
 * the `openai` SDK's chat and embeddings calls (its base64 decoding included).
 */
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedEmbedding } from '../../src/engine/scripted/scripted-embedding';
import { postChatStream, postJson, useChatSdk } from './chat.page';
import { type AppSession, openApp } from './harness';

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp();
});
afterAll(() => app?.close());

const user = (content: string) => [{ role: 'user', content }];

describe('POST /v1/chat/completions through the service worker', () => {
  it('answers a chat.completion as JSON', async () => {
    const res = await app.page.evaluate(postJson, {
      path: '/v1/chat/completions',
      body: { model: 'scripted', messages: user('hello tab') },
    });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('application/json');
    const body = res.body as ChatCompletion;
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(body.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'You said: hello tab' });
    expect(body.usage).toMatchObject({ prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 });
  });

  it('streams data-only chunks, a usage chunk, then [DONE]', async () => {
    const res = await app.page.evaluate(postChatStream, {
      model: 'scripted',
      messages: user('!words 4'),
      stream_options: { include_usage: true },
    });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('text/event-stream');
    expect(res.frames.every((f) => f.startsWith('data: '))).toBe(true);
    expect(res.frames.at(-1)).toBe('data: [DONE]');
    const chunks = res.frames.slice(0, -1).map((f) => JSON.parse(f.slice(6)));
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('w1 w2 w3 w4');
    expect(chunks.at(-2).choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 4 } });
  });

  it('answers a refused request with its status and OpenAI error body', async () => {
    const res = await app.page.evaluate(postJson, {
      path: '/v1/chat/completions',
      body: { model: 'scripted', messages: user('hi'), n: 3 },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: { param: 'n', code: 'unsupported_value', type: 'invalid_request_error' },
    });
  });
});

describe('POST /v1/embeddings through the service worker', () => {
  it('answers scripted vectors, floats and base64', async () => {
    const floats = await app.page.evaluate(postJson, {
      path: '/v1/embeddings',
      body: { model: 'scripted', input: ['hello tab', 'bye'], encoding_format: 'float' },
    });
    expect(floats.status).toBe(200);
    expect(floats.body).toMatchObject({
      object: 'list',
      model: 'scripted',
      usage: { prompt_tokens: 3, total_tokens: 3 },
    });
    const data = (floats.body as { data: { index: number; embedding: number[] }[] }).data;
    expect(data.map((d) => d.index)).toEqual([0, 1]);
    expect(data[0]?.embedding).toEqual(scriptedEmbedding('hello tab'));
    const b64 = await app.page.evaluate(postJson, {
      path: '/v1/embeddings',
      body: { model: 'scripted', input: 'hello tab', encoding_format: 'base64' },
    });
    const encoded = (b64.body as { data: { embedding: string }[] }).data[0]?.embedding ?? '';
    const bytes = Buffer.from(encoded, 'base64');
    expect(bytes.length).toBe(64 * 4);
  });
});

describe('the openai SDK in the page', () => {
  it('creates and streams chat completions and decodes embeddings', async () => {
    const r = await app.page.evaluate(useChatSdk, 'sdk in the tab');
    expect((r.created as ChatCompletion).choices[0]?.message.content).toBe('You said: sdk in the tab');
    expect(r.streamedText).toBe('You said: sdk in the tab');
    // Role chunk, 6 content chunks, finish chunk, usage chunk.
    expect(r.chunkCount).toBe(9);
    expect(r.helperDeltas).toEqual(['You', ' said:', ' sdk', ' in', ' the', ' tab']);
    expect((r.helperFinal as ChatCompletion).choices[0]?.finish_reason).toBe('stop');
    const expected = scriptedEmbedding('sdk in the tab');
    expect(r.embeddingFloat).toEqual(expected);
    expect(r.embeddingDefault).toEqual(expected.map((x) => Math.fround(x)));
    expect(r.embeddingUsage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
