/**
 * `POST /v1/embeddings` hands the request's abort to the engine: a client that goes away mid-way
 * stops an engine that embeds input by input (the llama.cpp one), rather than leaving it to embed
 * every input for no one while every other request waits.
 */
import { describe, expect, it } from 'vitest';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { EmbedResult } from '../../src/engine/types';
import { BASE, makeRig } from '../helpers/server';

/** `scripted`, embedding one input per 10 ms and stopping between inputs once `signal` aborts. */
class SlowEmbedder extends ScriptedEngine {
  embedded = 0;
  sawSignal: AbortSignal | undefined;

  override async embed(
    modelId: string,
    inputs: string[],
    dimensions?: number,
    signal?: AbortSignal,
  ): Promise<EmbedResult> {
    this.sawSignal = signal;
    for (const _ of inputs) {
      if (signal?.aborted) throw new Error('aborted');
      await new Promise((r) => setTimeout(r, 10));
      this.embedded++;
    }
    return super.embed(modelId, inputs, dimensions);
  }
}

describe('embeddings and abort', () => {
  it('passes the request abort to the engine, which stops between inputs', async () => {
    const engine = new SlowEmbedder();
    const { server } = makeRig({ engine });
    const client = new AbortController();
    const inputs = Array.from({ length: 300 }, (_, i) => `input ${i}`);
    const res = server.fetch(
      new Request(`${BASE}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'scripted', input: inputs }),
        signal: client.signal,
      }),
    );
    await new Promise((r) => setTimeout(r, 60));
    client.abort();
    await res.catch(() => null);
    await new Promise((r) => setTimeout(r, 60));
    expect(engine.sawSignal?.aborted).toBe(true);
    // 300 inputs at 10 ms take 3 s; the engine stopped within a few inputs of the abort.
    const after = engine.embedded;
    await new Promise((r) => setTimeout(r, 100));
    expect(engine.embedded).toBe(after);
    expect(after).toBeLessThan(50);
  });
});
