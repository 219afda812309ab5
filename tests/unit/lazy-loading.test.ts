import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/common/api-error';
import { preloaded } from '../../src/common/lazy-module';
import { lazyModule, lazyRoutes } from '../../src/core/http/lazy-module';
import { hasFileParts } from '../../src/core/inputs/has-file-parts';
import { createResponsesServer } from '../../src/core/server';
import { ScriptedEngine } from '../../src/engine';
import { MemoryStore } from '../../src/store';
import { lazyPythonRunner } from '../../src/worker/lazy-python';

describe('lazyModule (issue 36: code a request needs, loaded on first use)', () => {
  it('preloaded: synchronous code reads the module only after a load, and a failed load is tried again', async () => {
    const load = vi
      .fn<() => Promise<{ convert: (s: string) => string }>>()
      .mockRejectedValueOnce(new TypeError('Failed to fetch dynamically imported module'))
      .mockResolvedValue({ convert: (s) => s.toUpperCase() });
    const grammars = preloaded('custom tool grammar', load);
    expect(() => grammars.get()).toThrow(/used before it was loaded/);
    expect(((await grammars.load().catch((e: unknown) => e)) as ApiError).status).toBe(503);
    expect(() => grammars.get()).toThrow(/used before it was loaded/);
    await grammars.load();
    expect(grammars.get().convert('sql')).toBe('SQL');
    await grammars.load();
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('loads once and hands every caller the same module', async () => {
    const load = vi.fn(async () => ({ answer: 42 }));
    const mod = lazyModule('test', load);
    const [a, b] = await Promise.all([mod(), mod()]);
    expect(a).toBe(b);
    expect(await mod()).toBe(a);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('turns a failed load into an OpenAI-shaped 503, and tries again on the next call', async () => {
    const load = vi
      .fn<() => Promise<{ ok: true }>>()
      .mockRejectedValueOnce(new TypeError('Failed to fetch dynamically imported module: /assets/x.js'))
      .mockResolvedValueOnce({ ok: true });
    const mod = lazyModule('vector stores', load);
    const err = await mod().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).toJSON()).toEqual({
      error: {
        message:
          'intab could not load its vector stores code: Failed to fetch dynamically imported module: /assets/x.js',
        type: 'server_error',
        param: null,
        code: 'module_unavailable',
      },
    });
    expect((err as ApiError).status).toBe(503);
    expect(await mod()).toEqual({ ok: true });
    expect(load).toHaveBeenCalledTimes(2);
  });
});

describe('lazyRoutes', () => {
  const handler = async () => new Response('loaded');

  it('knows its paths and methods before loading, and loads the table once', async () => {
    const load = vi.fn(async () => [{ path: '/things/:id', methods: { GET: handler, DELETE: handler } }]);
    const [route] = lazyRoutes({ '/things/:id': ['GET', 'DELETE'] }, load);
    expect(route?.path).toBe('/things/:id');
    expect(Object.keys(route?.methods ?? {})).toEqual(['GET', 'DELETE']);
    expect(load).not.toHaveBeenCalled();
    const url = new URL('http://x/things/1');
    expect(await (await route?.methods.GET?.(new Request(url), url, { id: '1' }))?.text()).toBe('loaded');
    await route?.methods.DELETE?.(new Request(url), url, { id: '1' });
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('answers a method the loaded table lacks with a 500, not a hang', async () => {
    const [route] = lazyRoutes({ '/things': ['POST'] }, async () => [{ path: '/things', methods: {} }]);
    const url = new URL('http://x/things');
    const err = await route?.methods.POST?.(new Request(url), url, {}).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(500);
  });
});

describe('the server’s lazy routes', () => {
  const server = () => createResponsesServer({ engine: new ScriptedEngine(), store: new MemoryStore() });

  it('tells an unknown method from an unknown path without loading anything', async () => {
    const s = server();
    const put = await s.fetch(new Request('http://x/v1/vector_stores', { method: 'PUT' }));
    expect(put.status).toBe(405);
    const missing = await s.fetch(new Request('http://x/v1/vector_stores/vs_1/nope'));
    expect(missing.status).toBe(404);
  });

  it('serves Files, Vector Stores, Conversations and chat completions through their loaded code', async () => {
    const s = server();
    const files = await s.fetch(new Request('http://x/v1/files'));
    expect(files.status).toBe(200);
    expect(((await files.json()) as { object: string }).object).toBe('list');
    const store = await s.fetch(
      new Request('http://x/v1/vector_stores', { method: 'POST', body: '{"name":"a"}' }),
    );
    expect(((await store.json()) as { object: string }).object).toBe('vector_store');
    const conv = await s.fetch(new Request('http://x/v1/conversations/conv_nope'));
    expect(conv.status).toBe(404);
    const chat = await s.fetch(
      new Request('http://x/v1/chat/completions', {
        method: 'POST',
        body: JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'hi' }] }),
      }),
    );
    expect(((await chat.json()) as { object: string }).object).toBe('chat.completion');
  });
});

describe('hasFileParts', () => {
  it('is true for a user-side input_file or input_image part, false for text and assistant output', () => {
    const text = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] } as never;
    expect(hasFileParts([text])).toBe(false);
    expect(hasFileParts([{ type: 'message', role: 'user', content: 'hi' } as never])).toBe(false);
    const file = { type: 'input_file', file_id: 'file-1' };
    expect(hasFileParts([text, { type: 'message', role: 'user', content: [file] } as never])).toBe(true);
    expect(
      hasFileParts([
        { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image' }] } as never,
      ]),
    ).toBe(true);
    expect(
      hasFileParts([{ type: 'message', role: 'assistant', content: [{ type: 'input_file' }] } as never]),
    ).toBe(false);
  });
});

describe('lazyPythonRunner', () => {
  it('loads the sandbox host by the first call, and applies a stop made while it loads', async () => {
    const host = {
      run: vi.fn(async () => ({ status: 'completed' }) as never),
      stop: vi.fn(),
      prewarm: vi.fn(),
    };
    let release: () => void = () => {};
    const create = vi.fn(
      () =>
        new Promise<typeof host>((resolve) => {
          release = () => resolve(host);
        }),
    );
    const runner = lazyPythonRunner(create);
    expect(create).not.toHaveBeenCalled();
    const ran = runner.run('cntr_1', 'print(1)', []);
    runner.stop('cntr_1');
    release();
    await ran;
    await vi.waitFor(() => expect(host.stop).toHaveBeenCalledWith('cntr_1'));
    expect(host.run).toHaveBeenCalledWith('cntr_1', 'print(1)', [], undefined);
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('fails a call with a 503 when the host cannot load', async () => {
    const runner = lazyPythonRunner(async () => {
      throw new Error('chunk gone');
    });
    const err = await runner.run('cntr_1', 'x', []).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(503);
  });
});
