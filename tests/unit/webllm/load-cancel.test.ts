/**
 * Cancelling a web-llm model load (issue 24, item 3): `cancelLoad` stops web-llm's download through
 * its `unload()`, the waiting load fails with an OpenAI-shaped 503 `model_load_cancelled`, the model
 * stays unloaded, and a later load works. Also across the engine worker's comlink port, as pages call it.
 * Before this change there was no cancel: a load could only finish, fail, or time out after 120 s.
 */
import * as Comlink from 'comlink';
import { afterEach, describe, expect, it } from 'vitest';
import { toApiError } from '../../../src/common/api-error';
import type { LoadProgress } from '../../../src/engine/types';
import { createEngineApi } from '../../../src/worker/engine-api';
import type { EngineApi } from '../../../src/worker/protocol';
import { LLAMA, QWEN3, rejection, setup } from '../../helpers/webllm-fakes';

/** An engine whose fake web-llm downloads LLAMA in 4 shards and stops at the 3rd until unloaded. */
async function downloading() {
  const rig = setup({ loadTimeoutMs: 60_000 });
  await rig.engine.load(QWEN3); // creates the fake
  rig.fake().downloadUntilUnloaded({ shards: 4, shardMB: 100, stopAt: 3 });
  return rig;
}

describe('WebLLMEngine.cancelLoad', () => {
  it('stops a download in flight: the load fails 503 model_load_cancelled, web-llm is unloaded', async () => {
    const { engine, fake } = await downloading();
    const seen: LoadProgress[] = [];
    const load = engine.load(LLAMA, (p) => seen.push(p));
    await expect.poll(() => seen.length).toBe(3); // start, shard 1, shard 2
    const unloadsBefore = fake().unloads;
    await expect(engine.cancelLoad(LLAMA)).resolves.toBe(true);
    // Ended by the cancel, as its code says: the download never goes on, and the load's own bound
    // (60 s) would say model_load_timeout.
    const err = await rejection(load);
    expect([err.status, err.type, err.code]).toEqual([503, 'server_error', 'model_load_cancelled']);
    expect(err.message).toContain(LLAMA);
    expect(fake().unloads).toBe(unloadsBefore + 1); // unload() is what aborts web-llm's reload
    expect(seen.at(-1)?.text).toMatch(/^Fetching param cache\[2\/4\]: 200MB fetched/);
  });

  it('leaves the model unloaded, and a later load works', async () => {
    const { engine, fake } = await downloading();
    const load = engine.load(LLAMA);
    await expect.poll(() => fake().reloads.length).toBe(2);
    await engine.cancelLoad(LLAMA);
    await rejection(load);
    fake().reloadImpl = async () => {};
    const before = fake().reloads.length;
    await engine.load(LLAMA);
    expect(fake().reloads.length).toBe(before + 1); // loaded again, not taken as already loaded
    expect(fake().reloads.at(-1)).toBe(LLAMA);
  });

  it('ends the load even when web-llm never settles its aborted reload', async () => {
    const { engine, fake } = await downloading();
    fake().reloadImpl = () => new Promise(() => {});
    const load = engine.load(LLAMA);
    await expect.poll(() => fake().reloads.length).toBe(2);
    await engine.cancelLoad(LLAMA);
    expect((await rejection(load)).code).toBe('model_load_cancelled');
    fake().reloadImpl = async () => {};
    await engine.load(LLAMA); // the gate was released
  });

  it('cancels a load still waiting for its turn without starting its download', async () => {
    const { engine, fake } = await downloading();
    const first = engine.load(LLAMA);
    await expect.poll(() => fake().reloads.length).toBe(2);
    const queued = engine.load('Phi-3.5-vision-instruct-q4f16_1-MLC');
    await engine.cancelLoad('Phi-3.5-vision-instruct-q4f16_1-MLC');
    expect((await rejection(queued)).code).toBe('model_load_cancelled');
    await engine.cancelLoad(LLAMA);
    await rejection(first);
    expect(fake().reloads).toEqual([QWEN3, LLAMA]); // Phi never reached web-llm
  });

  it('answers false when no load of that model is running', async () => {
    const { engine } = setup();
    await expect(engine.cancelLoad(LLAMA)).resolves.toBe(false);
    await engine.load(LLAMA);
    await expect(engine.cancelLoad(LLAMA)).resolves.toBe(false);
    await expect(engine.cancelLoad('no-such-model')).resolves.toBe(false);
  });
});

describe('cancelLoad across the engine worker port', () => {
  const open: MessagePort[] = [];
  afterEach(() => {
    for (const port of open.splice(0)) port.close();
  });

  it("reaches the engine from the page's side as plain data; loadModel rejects with the OpenAI error", async () => {
    const { engine } = await downloading();
    const api = createEngineApi({
      server: async () => ({ fetch: async () => Response.json({}) }),
      load: (id, onProgress) => engine.load(id, onProgress),
      cancelLoad: (id) => engine.cancelLoad(id),
      gpuStatus: async () => ({ available: true, adapter: null, features: [] }),
    });
    const { port1, port2 } = new MessageChannel();
    open.push(port1, port2);
    Comlink.expose(api, port1);
    const remote = Comlink.wrap<EngineApi>(port2);
    const seen: LoadProgress[] = [];
    const load = remote.loadModel(
      LLAMA,
      Comlink.proxy((p: LoadProgress) => {
        seen.push(p);
      }),
    );
    await expect.poll(() => seen.length).toBe(3);
    await expect(remote.cancelLoad(LLAMA)).resolves.toBe(true);
    const err = await load.then(
      () => null,
      (e: unknown) => toApiError(e),
    );
    expect(err).toMatchObject({ status: 503, code: 'model_load_cancelled' });
    await expect(remote.cancelLoad(LLAMA)).resolves.toBe(false);
  });

  it('refuses a cancelLoad without a model id with a 400 naming the param', async () => {
    const api = createEngineApi({
      server: async () => ({ fetch: async () => Response.json({}) }),
      load: async () => {},
      gpuStatus: async () => ({ available: false, adapter: null, features: [] }),
    });
    const err = await api.cancelLoad(42 as unknown as string).catch((e: unknown) => toApiError(e));
    expect(err).toMatchObject({ status: 400, param: 'model' });
  });
});
