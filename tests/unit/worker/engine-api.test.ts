/**
 * The engine worker's API across a real MessageChannel (Node's), as the service worker and the page
 * use it: streams are transferred, errors arrive as plain data, and bad input never breaks the port.
 */
import * as Comlink from 'comlink';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, toApiError } from '../../../src/common/api-error';
import { createResponsesServer } from '../../../src/core/server';
import { ScriptedEngine } from '../../../src/engine/scripted/scripted-engine';
import type { LoadProgress } from '../../../src/engine/types';
import { MemoryStore } from '../../../src/store/memory-store';
import { createEngineApi, type EngineApiDeps } from '../../../src/worker/engine-api';
import type { EngineApi, SerializedRequest } from '../../../src/worker/protocol';
import { deserializeResponse, requestTransferables, serializeRequest } from '../../../src/worker/wire';

const open: MessagePort[] = [];
afterEach(() => {
  for (const port of open.splice(0)) port.close();
});

function connect(deps: Partial<EngineApiDeps>): Comlink.Remote<EngineApi> {
  const api = createEngineApi({
    server: async () => ({ fetch: async () => Response.json({ ok: true }) }),
    load: async () => {},
    gpuStatus: async () => ({ available: false, adapter: null, features: [], reason: 'test' }),
    ...deps,
  });
  const { port1, port2 } = new MessageChannel();
  open.push(port1, port2);
  Comlink.expose(api, port1);
  return Comlink.wrap<EngineApi>(port2);
}

async function send(remote: Comlink.Remote<EngineApi>, req: Request, id = 'r1'): Promise<Response> {
  const data = await serializeRequest(req, id);
  return deserializeResponse(await remote.handle(Comlink.transfer(data, requestTransferables(data))));
}

describe.each([
  { mode: 'transferred streams', transferStreams: true },
  { mode: 'the pull fallback (no stream transfer)', transferStreams: false },
])('response bodies through $mode', ({ transferStreams }) => {
  it('hands the core the request and streams its body back', async () => {
    let seen: { method: string; url: string; type: string | null; body: string } | undefined;
    const remote = connect({
      transferStreams,
      server: async () => ({
        fetch: async (req) => {
          seen = {
            method: req.method,
            url: req.url,
            type: req.headers.get('content-type'),
            body: await req.text(),
          };
          return new Response('data: 1\n\n', {
            status: 201,
            headers: { 'content-type': 'text/event-stream' },
          });
        },
      }),
    });
    const res = await send(
      remote,
      new Request('http://app.test/v1/responses', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"model":"scripted"}',
      }),
    );
    expect(seen).toEqual({
      method: 'POST',
      url: 'http://app.test/v1/responses',
      type: 'application/json',
      body: '{"model":"scripted"}',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(await res.text()).toBe('data: 1\n\n');
  });

  it('propagates a cancel of the transferred body to the core stream', async () => {
    let cancelled: unknown = 'not cancelled';
    const remote = connect({
      transferStreams,
      server: async () => ({
        fetch: async () =>
          new Response(
            new ReadableStream({
              pull: (c) => c.enqueue(new TextEncoder().encode('tok ')),
              cancel: (reason) => {
                cancelled = reason;
              },
            }),
          ),
      }),
    });
    const res = await send(
      remote,
      new Request('http://app.test/v1/responses', { method: 'POST', body: '{}' }),
    );
    const reader = res.body?.getReader();
    expect((await reader?.read())?.done).toBe(false);
    await reader?.cancel('page aborted');
    await expect.poll(() => cancelled).toBe('page aborted');
  });
});

describe('createEngineApi over a MessagePort', () => {
  it('answers with an OpenAI error when the core throws, and keeps serving', async () => {
    let calls = 0;
    const remote = connect({
      server: async () => ({
        fetch: async () => {
          calls++;
          if (calls === 1) throw new ApiError(400, 'invalid_request_error', 'bad', 'input', 'Bad input.');
          if (calls === 2) throw new TypeError('core bug');
          return Response.json({ ok: true });
        },
      }),
    });
    const req = () => new Request('http://app.test/v1/models');
    const first = await send(remote, req());
    expect(first.status).toBe(400);
    expect(await first.json()).toEqual({
      error: { message: 'Bad input.', type: 'invalid_request_error', param: 'input', code: 'bad' },
    });
    const second = await send(remote, req());
    expect(second.status).toBe(500);
    expect(((await second.json()) as { error: { message: string } }).error.message).toBe('core bug');
    expect((await send(remote, req())).status).toBe(200);
  });

  it('survives a malformed request message', async () => {
    const remote = connect({});
    const bogus = {
      id: 7,
      method: 'POST',
      url: 'not a url',
      headers: 'nope',
      body: null,
    } as unknown as SerializedRequest;
    const res = deserializeResponse(await remote.handle(bogus));
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: { type: 'server_error' } });
    expect(await remote.ping()).toEqual({ protocol: 1 });
  });

  it('retries a server that failed to start', async () => {
    let attempts = 0;
    const remote = connect({
      server: async () => {
        if (++attempts === 1)
          throw new ApiError(503, 'server_error', 'storage_unavailable', null, 'IndexedDB is off.');
        return { fetch: async () => Response.json({ ok: true }) };
      },
    });
    expect((await send(remote, new Request('http://app.test/v1/models'))).status).toBe(503);
    expect((await send(remote, new Request('http://app.test/v1/models'))).status).toBe(200);
  });

  it('aborts the request signal when the caller gives up', async () => {
    let aborted = false;
    let started = false;
    const remote = connect({
      server: async () => ({
        fetch: (req) =>
          new Promise<Response>((resolve) => {
            started = true;
            req.signal.addEventListener('abort', () => {
              aborted = true;
              resolve(Response.json({ aborted: true }));
            });
          }),
      }),
    });
    const pending = send(
      remote,
      new Request('http://app.test/v1/responses', { method: 'POST', body: '{}' }),
      'req-9',
    );
    await expect.poll(() => started).toBe(true);
    await remote.abort('req-9');
    expect(await (await pending).json()).toEqual({ aborted: true });
    expect(aborted).toBe(true);
  });

  it('stops a JSON generation in the core when the caller gives up, and stores it cancelled', async () => {
    const store = new MemoryStore();
    const server = createResponsesServer({ engine: new ScriptedEngine(), store });
    const remote = connect({ server: async () => server });
    const pending = send(
      remote,
      new Request('http://app.test/v1/responses', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // 200 tokens 20 ms apart: 4 s unless the abort stops it.
        body: JSON.stringify({ model: 'scripted', input: '!delay 20 !words 200' }),
      }),
      'req-json',
    );
    await expect.poll(async () => (await store.listUnfinished()).length).toBe(1);
    const [running] = await store.listUnfinished();
    await new Promise((r) => setTimeout(r, 100));
    await remote.abort('req-json');
    const answered = (await (await pending).json()) as { status: string; output_text?: string };
    expect(answered.status).toBe('cancelled');
    const stored = await store.getResponse(running?.response.id as string);
    expect(stored?.response.status).toBe('cancelled');
    expect(JSON.stringify(stored?.response.output).match(/\bw\d+\b/g)?.length).toBeLessThan(50);
  });

  it('forwards load progress and turns load errors back into ApiErrors', async () => {
    const remote = connect({
      load: async (modelId, onProgress) => {
        onProgress?.({ progress: 0.5, text: `half of ${modelId}` });
        throw new ApiError(503, 'server_error', 'webgpu_unavailable', null, 'No WebGPU.');
      },
    });
    const progress: unknown[] = [];
    const error = await remote
      .loadModel(
        'Qwen',
        Comlink.proxy((p: LoadProgress) => {
          progress.push(p);
        }),
      )
      .then(
        () => null,
        (err: unknown) => toApiError(err),
      );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 503, code: 'webgpu_unavailable', message: 'No WebGPU.' });
    await expect.poll(() => progress).toEqual([{ progress: 0.5, text: 'half of Qwen' }]);
  });
});
