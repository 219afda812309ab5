import { describe, expect, it } from 'vitest';
import { defaultEmbeddingModel } from '../../../src/core/vector-stores';
import type { ModelInfo } from '../../../src/engine/types';

const model = (
  id: string,
  capabilities: ModelInfo['capabilities'],
  more: Partial<ModelInfo> = { engine: 'web-llm', cached: true },
): ModelInfo => ({ id, owned_by: 'x', created: 0, contextWindow: 512, vision: false, capabilities, ...more });

describe('the default embedding model of vector stores (issue 35: no download, no GPU by default)', () => {
  it('is the smallest listed embedding model that needs no download (web-llm lists m before s)', () => {
    const list = [
      model('scripted', ['chat', 'embeddings']),
      model('Qwen3-0.6B-q4f16_1-MLC', ['chat']),
      model('snowflake-arctic-embed-m-q0f32-MLC-b32', ['embeddings']),
      model('snowflake-arctic-embed-m-q0f32-MLC-b4', ['embeddings']),
      model('snowflake-arctic-embed-s-q0f32-MLC-b32', ['embeddings']),
      model('snowflake-arctic-embed-s-q0f32-MLC-b4', ['embeddings']),
    ];
    expect(defaultEmbeddingModel(list)).toBe('snowflake-arctic-embed-s-q0f32-MLC-b32');
    expect(defaultEmbeddingModel([...list, model('bge-small-en-v1.5', ['embeddings'])])).toBe(
      'snowflake-arctic-embed-s-q0f32-MLC-b32',
    );
    expect(
      defaultEmbeddingModel([
        model('nomic-embed-text', ['embeddings']),
        model('all-MiniLM-L6', ['embeddings']),
      ]),
    ).toBe('nomic-embed-text');
  });

  it('is an embedding GGUF the app registered on the CPU engine, cached or not', () => {
    const list = [
      model('snowflake-arctic-embed-s-q0f32-MLC-b32', ['embeddings'], { engine: 'web-llm', cached: false }),
      model('my-embedder', ['embeddings'], { engine: 'wllama', cached: false }),
    ];
    expect(defaultEmbeddingModel(list)).toBe('my-embedder');
  });

  it('is lexical (BM25 alone) when every embedding model would need a download, or none embeds', () => {
    const uncached = { engine: 'web-llm', cached: false };
    expect(
      defaultEmbeddingModel([
        model('snowflake-arctic-embed-s-q0f32-MLC-b32', ['embeddings'], uncached),
        model('unknown-cache', ['embeddings'], { engine: 'web-llm' }),
      ]),
    ).toBe('lexical');
    expect(defaultEmbeddingModel([model('scripted', ['chat', 'embeddings']), model('llm', ['chat'])])).toBe(
      'lexical',
    );
  });
});
