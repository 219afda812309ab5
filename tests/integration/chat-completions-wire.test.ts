/**
 * The Chat Completions wire beyond the SDK's view: SSE frames as OpenAI sends them (`data:` only,
 * `[DONE]` last), errors before output as HTTP statuses and after it as error frames, a cancelled
 * stream stopping the engine, and a model load inside the answer (progress comments, preflight,
 * early headers).
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { ApiError, serviceUnavailable } from '../../src/common/api-error';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { Engine, EngineChunk, GenerateRequest } from '../../src/engine/types';
import { GATED_MODEL, GatedLoadEngine } from '../helpers/engines';
import { makeRig } from '../helpers/server';
import { expectError } from './create-helpers';

const chat = <E extends object>(content: string, extra?: E) => ({
  model: 'scripted',
  messages: [{ role: 'user' as const, content }],
  ...(extra as E),
});

/** The body's SSE frames as raw text blocks. */
async function frames(res: Response): Promise<string[]> {
  return (await res.text()).split('\n\n').filter((f) => f !== '');
}

/** Scripted underneath, but counting what it yields and whether its generation ended. */
function spyEngine(before?: () => never): Engine & { yielded: number; ended: boolean } {
  const base = new ScriptedEngine();
  const spy = {
    yielded: 0,
    ended: false,
    models: () => base.models(),
    load: (id: string) => base.load(id),
    countTokens: base.countTokens.bind(base),
    async *generate(req: GenerateRequest, signal: AbortSignal): AsyncGenerator<EngineChunk> {
      try {
        before?.();
        for await (const chunk of base.generate(req, signal)) {
          spy.yielded += 1;
          yield chunk;
        }
      } finally {
        spy.ended = true;
      }
    },
  };
  return spy;
}

describe('the streamed wire', () => {
  it('is data-only frames ending with [DONE]', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/chat/completions', chat('hi', { stream: true }));
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const all = await frames(res);
    expect(all.every((f) => f.startsWith('data: ') && !f.includes('\n'))).toBe(true);
    expect(all.at(-1)).toBe('data: [DONE]');
    expect(JSON.parse(all[0]?.slice(6) ?? '')).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [
        {
          index: 0,
          delta: { role: 'assistant', content: '', refusal: null },
          logprobs: null,
          finish_reason: null,
        },
      ],
    });
  });

  it('ends a failure after output with an error frame and no [DONE]; the SDK throws it', async () => {
    const { call, client } = makeRig();
    const all = await frames(await call('POST', '/chat/completions', chat('!fail now', { stream: true })));
    expect(all).toHaveLength(3);
    expect(JSON.parse(all[1]?.slice(6) ?? '').choices[0].delta).toEqual({ content: 'You' });
    expect(JSON.parse(all[2]?.slice(6) ?? '')).toEqual({
      error: {
        message: 'The scripted model failed on purpose (!fail).',
        type: 'server_error',
        param: null,
        code: 'server_error',
      },
    });
    const seen: string[] = [];
    const stream = await client.chat.completions.create(chat('!fail now', { stream: true as const }));
    const failure = await (async () => {
      for await (const c of stream) seen.push(c.choices[0]?.delta.content ?? '');
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as Error).message).toMatch(/failed on purpose/);
    expect(seen.join('')).toBe('You');
  });

  it('answers a failure before any output with its HTTP status, streamed or not', async () => {
    const engine = spyEngine(() => {
      throw serviceUnavailable('The GPU device was lost.', 'webgpu_device_lost');
    });
    const { call, client } = makeRig({ engine });
    for (const stream of [true, false]) {
      await expectError(
        await call('POST', '/chat/completions', chat('hi', { stream })),
        503,
        null,
        'webgpu_device_lost',
      );
    }
    await expect(client.chat.completions.create(chat('hi', { stream: true as const }))).rejects.toMatchObject(
      {
        status: 503,
        code: 'webgpu_device_lost',
      },
    );
  });

  it('stops generating when the reader cancels the stream', async () => {
    const engine = spyEngine();
    const { call } = makeRig({ engine });
    const res = await call('POST', '/chat/completions', chat('!delay 20 !words 200', { stream: true }));
    const reader = res.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    let text = '';
    while (!text.includes('w3')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel('the page went away');
    await expect.poll(() => engine.ended).toBe(true);
    expect(engine.yielded).toBeLessThan(20);
  });
});

describe('a model load inside the answer', () => {
  function gatedRig(jsonHoldMs?: number) {
    const engine = new GatedLoadEngine();
    return { ...makeRig({ engine, ...(jsonHoldMs && { jsonHoldMs }) }), engine };
  }
  const gated = (extra: object = {}) => ({ ...chat('hi', extra), model: GATED_MODEL });

  it('sends headers with the first progress report, as an SSE comment the SDK skips', async () => {
    const { call, engine } = gatedRig();
    let answered = false;
    const pending = call('POST', '/chat/completions', gated({ stream: true })).then((r) => {
      answered = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 30));
    expect(answered).toBe(false);
    engine.progress(0.5, 'Fetching param cache[1/2]');
    const res = await pending;
    expect(res.status).toBe(200);
    engine.finishLoad();
    const all = await frames(res);
    expect(all[0]).toBe(': intab.load {"progress":0.5,"text":"Fetching param cache[1/2]"}');
    expect(all.at(-1)).toBe('data: [DONE]');
  });

  it('refuses what preflight refuses, and a load that fails before any progress, with their status', async () => {
    const { call, engine } = gatedRig();
    engine.preflightError = serviceUnavailable('No WebGPU adapter.', 'webgpu_unavailable');
    await expectError(
      await call('POST', '/chat/completions', gated({ stream: true })),
      503,
      null,
      'webgpu_unavailable',
    );
    engine.preflightError = null;
    const pending = call('POST', '/chat/completions', gated({ stream: true }));
    await expect.poll(() => engine.loads).toBe(1);
    engine.failLoad(serviceUnavailable('Could not download.', 'model_download_failed'));
    await expectError(await pending, 503, null, 'model_download_failed');
  });

  it('reports a load that fails after progress as an error frame', async () => {
    const { call, engine } = gatedRig();
    const pending = call('POST', '/chat/completions', gated({ stream: true }));
    await expect.poll(() => engine.loads).toBe(1);
    engine.progress(0.1, 'Fetching');
    const res = await pending;
    engine.failLoad(new ApiError(504, 'server_error', 'model_load_timeout', null, 'No progress.'));
    const all = await frames(res);
    expect(JSON.parse(all.at(-1)?.slice(6) ?? '')).toMatchObject({ error: { code: 'model_load_timeout' } });
  });

  it('sends early headers past jsonHoldMs, streamed and not, then the answer', async () => {
    const { call, engine } = gatedRig(40);
    const streamed = await call('POST', '/chat/completions', gated({ stream: true }));
    expect(streamed.status).toBe(200);
    const json = await call('POST', '/chat/completions', gated());
    expect(json.status).toBe(200);
    engine.finishLoad();
    expect((await frames(streamed)).at(-1)).toBe('data: [DONE]');
    expect((await json.json()).choices[0].message.content).toBe('You said: hi');
  });
});
