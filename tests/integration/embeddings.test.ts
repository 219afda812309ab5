/**
 * `POST /v1/embeddings` through the official `openai` SDK (which asks for base64 and decodes it) and
 * raw requests: the `scripted` model's deterministic vectors, `dimensions`, and OpenAI's errors.
 */
import { describe, expect, it } from 'vitest';
import { scriptedEmbedding } from '../../src/engine/scripted/scripted-embedding';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { Engine, ModelInfo } from '../../src/engine/types';
import { makeRig } from '../helpers/server';
import { expectError, fakeEngine } from './create-helpers';

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
const float32 = (v: number[]) => v.map((x) => Math.fround(x));

describe('embeddings.create', () => {
  it('decodes the base64 the SDK asks for into scripted’s vector, as float32', async () => {
    const { client } = makeRig();
    const res = await client.embeddings.create({ model: 'scripted', input: 'hello world' });
    expect(res).toMatchObject({
      object: 'list',
      model: 'scripted',
      usage: { prompt_tokens: 2, total_tokens: 2 },
    });
    expect(res.data).toHaveLength(1);
    expect(res.data[0]).toMatchObject({ object: 'embedding', index: 0 });
    expect(res.data[0]?.embedding).toEqual(float32(scriptedEmbedding('hello world')));
  });

  it('sends floats with encoding_format float, and little-endian float32 base64 when asked', async () => {
    const { client, call } = makeRig();
    const floats = await client.embeddings.create({
      model: 'scripted',
      input: 'a b c',
      encoding_format: 'float',
    });
    expect(floats.data[0]?.embedding).toEqual(scriptedEmbedding('a b c'));
    const raw = await (
      await call('POST', '/embeddings', { model: 'scripted', input: 'a b c', encoding_format: 'base64' })
    ).json();
    const bytes = Buffer.from(raw.data[0].embedding, 'base64');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const decoded = Array.from({ length: bytes.length / 4 }, (_, i) => view.getFloat32(i * 4, true));
    expect(decoded).toEqual(float32(scriptedEmbedding('a b c')));
  });

  it('embeds a list in order, unit length, and similar for shared words', async () => {
    const { client } = makeRig();
    const input = ['the cat sat on the mat', 'the cat sat', 'quantum chromodynamics lecture notes'];
    const res = await client.embeddings.create({ model: 'scripted', input, encoding_format: 'float' });
    expect(res.data.map((d) => d.index)).toEqual([0, 1, 2]);
    const [a, b, c] = res.data.map((d) => d.embedding) as [number[], number[], number[]];
    for (const v of [a, b, c]) expect(Math.hypot(...v)).toBeCloseTo(1, 10);
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c));
    expect(res.usage.prompt_tokens).toBe(13);
  });

  it('truncates to dimensions and renormalizes', async () => {
    const { client } = makeRig();
    const text = 'one two three four five six seven eight nine ten';
    const res = await client.embeddings.create({
      model: 'scripted',
      input: text,
      dimensions: 16,
      encoding_format: 'float',
    });
    const full = scriptedEmbedding(text).slice(0, 16);
    const norm = Math.hypot(...full);
    expect(res.data[0]?.embedding).toEqual(full.map((x) => x / norm));
  });
});

describe('embeddings errors', () => {
  const chatOnly = (): Engine => {
    const engine = new ScriptedEngine();
    engine.models = () => [{ ...(new ScriptedEngine().models()[0] as ModelInfo), capabilities: ['chat'] }];
    return engine;
  };
  const cases: [string, Record<string, unknown>, string | null, string][] = [
    ['token arrays', { model: 'scripted', input: [[1, 2, 3]] }, 'input', 'unsupported_value'],
    ['a token list', { model: 'scripted', input: [1, 2, 3] }, 'input', 'unsupported_value'],
    ['an empty string', { model: 'scripted', input: ['a', ''] }, 'input[1]', 'invalid_value'],
    ['an empty list', { model: 'scripted', input: [] }, 'input', 'empty_array'],
    ['no input', { model: 'scripted' }, 'input', 'missing_required_parameter'],
    [
      'more dimensions than the model has',
      { model: 'scripted', input: 'a', dimensions: 65 },
      'dimensions',
      'invalid_value',
    ],
    [
      'zero dimensions',
      { model: 'scripted', input: 'a', dimensions: 0 },
      'dimensions',
      'integer_below_min_value',
    ],
    [
      'an unknown encoding',
      { model: 'scripted', input: 'a', encoding_format: 'hex' },
      'encoding_format',
      'invalid_value',
    ],
    ['an unknown parameter', { model: 'scripted', input: 'a', x: 1 }, 'x', 'unknown_parameter'],
    ['an unknown model', { model: 'nope', input: 'a' }, 'model', 'model_not_found'],
  ];
  it.each(cases)('refuses %s with 400', async (_name, body, param, code) => {
    const { call } = makeRig();
    await expectError(await call('POST', '/embeddings', body), 400, param, code);
  });

  it('refuses a chat model, and an engine that cannot embed, on model', async () => {
    for (const engine of [chatOnly(), fakeEngine([])]) {
      const { call } = makeRig({ engine });
      const message = await expectError(
        await call('POST', '/embeddings', { model: 'scripted', input: 'a' }),
        400,
        'model',
        'unsupported_model',
      );
      expect(message).toMatch(/'scripted' is a chat model and cannot create embeddings/);
    }
  });
});
