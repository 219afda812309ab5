/**
 * `/v1/models` through the openai SDK: a model the catalog knows carries the catalog's fields
 * (intab's extension fields, as `engine` is), and one it does not know carries none.
 */
import { describe, expect, it } from 'vitest';
import { CompositeEngine } from '../../src/engine/composite-engine';
import { lazyWebLLMEngine } from '../../src/engine/lazy-engines';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import { makeRig } from '../helpers/server';

describe('/v1/models with the catalog fields', () => {
  const { client } = makeRig({ engine: new CompositeEngine([new ScriptedEngine(), lazyWebLLMEngine()]) });

  it('lists a web-llm build with family, size, quantization, context, GPU memory and shader-f16', async () => {
    const model = (await client.models.retrieve('Llama-3.2-1B-Instruct-q4f16_1-MLC')) as unknown as Record<
      string,
      unknown
    >;
    expect(model).toMatchObject({
      id: 'Llama-3.2-1B-Instruct-q4f16_1-MLC',
      object: 'model',
      engine: 'web-llm',
      family: 'Llama 3.2',
      parameters: 1e9,
      quantization: 'q4f16_1',
      context_window: 4096,
      vram_required_MB: 879.04,
      low_resource_required: true,
      requires_shader_f16: true,
    });
    // Unknown facts are left out rather than sent as null.
    expect(model).not.toHaveProperty('download_bytes');
  });

  it('gives every listed web-llm model its catalog fields, and scripted none', async () => {
    const listed: Record<string, unknown>[] = [];
    for await (const m of client.models.list()) listed.push(m as unknown as Record<string, unknown>);
    const webllm = listed.filter((m) => m.engine === 'web-llm');
    expect(webllm.length).toBe(165);
    for (const m of webllm) expect(typeof m.vram_required_MB, String(m.id)).toBe('number');
    const scripted = listed.find((m) => m.id === 'scripted');
    expect(scripted).not.toHaveProperty('family');
  });
});
