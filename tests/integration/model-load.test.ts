/**
 * A request to a model that is not loaded yet: refusals that need no download (preflight) keep their
 * HTTP status; otherwise the response starts at once and the model loads inside it, with progress as
 * SSE comments that the openai SDK skips, and a failed load fails the response with its own code.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { ApiError, serviceUnavailable } from '../../src/common/api-error';
import { MemoryStore } from '../../src/store/memory-store';
import { GATED_MODEL, GatedLoadEngine } from '../helpers/engines';
import { BASE, makeRig } from '../helpers/server';
import { validateResponse, validateStreamEvent } from '../helpers/spec';

const downloadFailed = () =>
  serviceUnavailable(`Could not download model '${GATED_MODEL}': Failed to fetch`, 'model_download_failed');

function gatedRig() {
  const engine = new GatedLoadEngine();
  const store = new MemoryStore();
  return { ...makeRig({ engine, store }), engine, store };
}

/** Reads an SSE body as text until `until` matches, returning what was read so far. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, until: RegExp): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  while (!until.test(text)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

describe('a streamed request to an unloaded model', () => {
  it('sends response.created and in_progress before the load ends, then progress comments', async () => {
    const { call, engine } = gatedRig();
    const res = await call('POST', '/responses', { model: GATED_MODEL, input: 'hi', stream: true });
    expect(res.status).toBe(200);
    const reader = res.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    const head = await readUntil(reader, /response\.in_progress[\s\S]*\n\n/);
    expect(engine.loaded).toBe(false);
    expect([...head.matchAll(/^event: (.+)$/gm)].map((m) => m[1])).toEqual([
      'response.created',
      'response.in_progress',
    ]);

    engine.progress(0.42, 'Fetching param cache[3/10]: 120MB fetched.');
    const comment = await readUntil(reader, /: intab\.load .*\n\n/);
    expect(comment).toBe(
      ': intab.load {"progress":0.42,"text":"Fetching param cache[3/10]: 120MB fetched."}\n\n',
    );
    engine.finishLoad();
    const rest = await readUntil(reader, /response\.completed/);
    expect(rest).toMatch(/"delta":" hi"/);
  });

  it('is read by the openai SDK as if the comments were not there', async () => {
    const { server, engine } = gatedRig();
    // The bytes the SDK read, so the comments it skipped are shown to have been there.
    let raw = '';
    const decoder = new TextDecoder();
    const tee = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        raw += decoder.decode(chunk, { stream: true });
        out.enqueue(chunk);
      },
    });
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const res = await server.fetch(new Request(input, init));
      return new Response(res.body?.pipeThrough(tee), { status: res.status, headers: res.headers });
    };
    const client = new OpenAI({ apiKey: 'intab-test', baseURL: BASE, fetch, maxRetries: 0 });
    const stream = client.responses.stream({ model: GATED_MODEL, input: 'hello sdk' });
    const types: string[] = [];
    stream.on('event', (e) => {
      types.push(e.type);
      if (e.type === 'response.in_progress') {
        engine.progress(0.5, 'Loading model from cache[1/2]');
        engine.progress(1, 'Finish loading on WebGPU');
        engine.finishLoad();
      }
    });
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe('You said: hello sdk');
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.at(-1)).toBe('response.completed');
    // Both comments reached the SDK, after in_progress and before any output, and no event came of them.
    const comments = [...raw.matchAll(/^: intab\.load (.*)$/gm)].map((m) => JSON.parse(m[1] as string));
    expect(comments).toEqual([
      { progress: 0.5, text: 'Loading model from cache[1/2]' },
      { progress: 1, text: 'Finish loading on WebGPU' },
    ]);
    const at = (s: string) => raw.indexOf(s);
    expect(at(': intab.load')).toBeGreaterThan(at('event: response.in_progress'));
    expect(raw.lastIndexOf(': intab.load')).toBeLessThan(at('event: response.output_item.added'));
    expect(types.length).toBe([...raw.matchAll(/^event: /gm)].length);
  });

  it('ends response.failed with the load error code, stored failed', async () => {
    const { client, engine } = gatedRig();
    const stream = client.responses.stream({ model: GATED_MODEL, input: 'hi' });
    const events: { type: string }[] = [];
    stream.on('event', (e) => {
      events.push(e);
      if (e.type === 'response.in_progress') engine.failLoad(downloadFailed());
    });
    const final = await stream.finalResponse();
    expect(final.status).toBe('failed');
    expect(final.error).toEqual({ code: 'model_download_failed', message: downloadFailed().message });
    for (const e of events) expect(validateStreamEvent(e)).toEqual([]);
    const stored = await client.responses.retrieve(final.id);
    expect(stored.status).toBe('failed');
    expect(stored.error?.code).toBe('model_download_failed');
    expect(validateResponse(stored)).toEqual([]);
  });
});

describe('preflight', () => {
  it('refuses before any header, with its status, for streams and JSON alike, storing nothing', async () => {
    const { call, engine, store } = gatedRig();
    engine.preflightError = serviceUnavailable('No WebGPU here.', 'webgpu_unavailable');
    for (const stream of [true, false]) {
      const res = await call('POST', '/responses', { model: GATED_MODEL, input: 'hi', stream });
      expect(res.status).toBe(503);
      expect((await res.json()).error).toEqual({
        message: 'No WebGPU here.',
        type: 'server_error',
        param: null,
        code: 'webgpu_unavailable',
      });
    }
    expect(engine.loads).toBe(0);
    expect(await store.listUnfinished()).toEqual([]);
  });
});

describe('a JSON request to an unloaded model', () => {
  it('answers the load error with its status and code, and stores the response failed', async () => {
    const { client, engine, store } = gatedRig();
    const answer = client.responses.create({ model: GATED_MODEL, input: 'hi' }).catch((e: unknown) => e);
    await expect.poll(() => engine.loads).toBe(1);
    const [running] = await store.listUnfinished();
    expect(running?.response.status).toBe('in_progress');
    engine.failLoad(new ApiError(504, 'server_error', 'model_load_timeout', null, 'No progress for 5 ms.'));
    const err = await answer;
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ status: 504, code: 'model_load_timeout', type: 'server_error' });
    const stored = await client.responses.retrieve(running?.response.id as string);
    expect(stored.error).toEqual({ code: 'model_load_timeout', message: 'No progress for 5 ms.' });
  });
});

describe('a background request to an unloaded model', () => {
  it('is queued at once, in_progress while the model loads, then completed', async () => {
    const { client, engine } = gatedRig();
    const queued = await client.responses.create({ model: GATED_MODEL, input: 'later', background: true });
    expect(queued.status).toBe('queued');
    await expect.poll(() => engine.loads).toBe(1);
    // The stored record follows the event log, written once per flush interval.
    await expect.poll(async () => (await client.responses.retrieve(queued.id)).status).toBe('in_progress');
    expect(engine.loaded).toBe(false);
    engine.finishLoad();
    await expect
      .poll(async () => (await client.responses.retrieve(queued.id)).status, { timeout: 30_000 })
      .toBe('completed');
    expect((await client.responses.retrieve(queued.id)).output_text).toBe('You said: later');
  });

  it('fails with the load error code', async () => {
    const { client, engine } = gatedRig();
    const queued = await client.responses.create({ model: GATED_MODEL, input: 'later', background: true });
    await expect.poll(() => engine.loads).toBe(1);
    engine.failLoad(downloadFailed());
    await expect
      .poll(async () => (await client.responses.retrieve(queued.id)).error?.code, { timeout: 30_000 })
      .toBe('model_download_failed');
    expect((await client.responses.retrieve(queued.id)).status).toBe('failed');
  });
});
