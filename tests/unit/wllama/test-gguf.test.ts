/**
 * The test models (scripts/build-test-gguf.mjs), read back by an independent GGUF parser
 * (`@huggingface/gguf`): the metadata llama.cpp needs, the real Llama 3 vocabulary and chat
 * template, every tensor with its ggml shape and type. Also: rebuilding gives the same bytes, and
 * intab's own header reader agrees with the independent one.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GGMLQuantizationType, gguf } from '@huggingface/gguf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTestModel, LLAMA3_CHAT_TEMPLATE, planVariant } from '../../../scripts/build-test-gguf.mjs';
import { readGgufHeader } from '../../../src/engine/wllama/gguf-header';

let path: string;
let sha256: string;
let parsed: Awaited<ReturnType<typeof gguf>>;

beforeAll(async () => {
  const built = await ensureTestModel('tiny');
  path = built.path;
  sha256 = built.manifest.sha256;
  parsed = await gguf(path, { allowLocalFile: true });
}, 120_000);

describe('the tiny test model, read by @huggingface/gguf', () => {
  it('is a llama model of 64 dims and 2 layers with an 8192-token context', () => {
    const m = parsed.metadata as Record<string, unknown>;
    expect(m['general.architecture']).toBe('llama');
    expect(m['llama.embedding_length']).toBe(64);
    expect(m['llama.block_count']).toBe(2);
    expect(m['llama.attention.head_count']).toBe(2);
    expect(m['llama.feed_forward_length']).toBe(256);
    expect(m['llama.context_length']).toBe(8192);
    expect(m['general.file_type']).toBe(1); // mostly f16
  });

  it('carries the real Llama 3 vocabulary, merges, special tokens and chat template', () => {
    const m = parsed.metadata as Record<string, unknown>;
    const tokens = m['tokenizer.ggml.tokens'] as string[];
    expect(tokens).toHaveLength(128_256);
    expect(m['tokenizer.ggml.merges']).toHaveLength(280_147);
    expect((m['tokenizer.ggml.merges'] as string[])[0]).toBe('Ġ Ġ');
    expect(tokens[128_000]).toBe('<|begin_of_text|>');
    expect(tokens[128_009]).toBe('<|eot_id|>');
    expect(tokens[9906]).toBe('Hello');
    expect(m['tokenizer.ggml.model']).toBe('gpt2');
    expect(m['tokenizer.ggml.pre']).toBe('llama-bpe');
    expect(m['tokenizer.ggml.bos_token_id']).toBe(128_000);
    expect(m['tokenizer.ggml.eos_token_id']).toBe(128_009);
    const types = m['tokenizer.ggml.token_type'] as number[];
    expect(types[9906]).toBe(1);
    expect(types[128_009]).toBe(3); // control
    expect(m['tokenizer.chat_template']).toBe(LLAMA3_CHAT_TEMPLATE);
  });

  it('has every llama tensor with its ggml shape and type, tied output embeddings', () => {
    const byName = new Map(parsed.tensorInfos.map((t) => [t.name, t]));
    expect(parsed.tensorInfos).toHaveLength(2 + 2 * 9);
    expect(byName.has('output.weight')).toBe(false);
    const embd = byName.get('token_embd.weight');
    expect(embd?.shape).toEqual([64n, 128_256n]);
    expect(embd?.dtype).toBe(GGMLQuantizationType.F16);
    expect(byName.get('output_norm.weight')?.dtype).toBe(GGMLQuantizationType.F32);
    for (const layer of [0, 1]) {
      expect(byName.get(`blk.${layer}.attn_q.weight`)?.shape).toEqual([64n, 64n]);
      expect(byName.get(`blk.${layer}.ffn_gate.weight`)?.shape).toEqual([64n, 256n]);
      expect(byName.get(`blk.${layer}.ffn_down.weight`)?.shape).toEqual([256n, 64n]);
      expect(byName.get(`blk.${layer}.attn_norm.weight`)?.dtype).toBe(GGMLQuantizationType.F32);
    }
    // Tensor data is 32-byte aligned, one tensor after the other.
    for (const t of parsed.tensorInfos) expect(Number(t.offset) % 32).toBe(0);
  });

  it("agrees with intab's own GGUF header reader", async () => {
    const bytes = readFileSync(path);
    const header = await readGgufHeader(new Blob([bytes]), 1 << 20);
    expect(header.tensorCount).toBe(parsed.tensorInfos.length);
    // Its tensors need the whole file (the last one's data is aligned: no padding after it).
    expect(header.expectedBytes).toBe(bytes.length);
    for (const [key, value] of Object.entries(parsed.metadata)) {
      if (key === 'version' || key === 'tensor_count' || key === 'kv_count') continue;
      const ours = header.metadata.get(key);
      // Whole contents: every token, merge and token type in order (toEqual on ~400k strings is slow
      // in vitest's diffing, so a mismatch is located first and then shown).
      if (Array.isArray(value)) {
        const theirs = value as unknown[];
        expect(Array.isArray(ours), key).toBe(true);
        expect((ours as unknown[]).length, key).toBe(theirs.length);
        const at = theirs.findIndex((v, i) => !Object.is(v, (ours as unknown[])[i]));
        const first = { key, at, ours: (ours as unknown[])[at], theirs: theirs[at] };
        expect(first).toEqual({ key, at: -1, ours: undefined, theirs: undefined });
      } else if (typeof value === 'number' && !Number.isInteger(value))
        expect(ours as number, key).toBeCloseTo(value, 6);
      else expect(ours, key).toEqual(value);
    }
  });
});

describe('building', () => {
  let dir: string;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is deterministic: a fresh build is byte-identical, and the cache is reused', async () => {
    dir = mkdtempSync(join(tmpdir(), 'intab-gguf-'));
    const fresh = await ensureTestModel('tiny', { dir });
    expect(fresh.built).toBe(true);
    expect(fresh.manifest.sha256).toBe(sha256);
    const again = await ensureTestModel('tiny', { dir });
    expect(again.built).toBe(false);
  }, 120_000);

  it('plans the bench model as ~93M parameters of Q8_0 (512 dims × 8 layers)', () => {
    const { tensors, params } = planVariant('bench');
    expect(params).toBeGreaterThan(90e6);
    expect(params).toBeLessThan(95e6);
    expect(tensors.find((t) => t.name === 'token_embd.weight')).toMatchObject({
      shape: [512, 128_256],
      type: 'q8_0',
    });
    expect(tensors.filter((t) => t.name.endsWith('attn_q.weight'))).toHaveLength(8);
    for (const t of tensors) if (t.type === 'q8_0') expect((t.shape[0] as number) % 32).toBe(0);
  });
});
