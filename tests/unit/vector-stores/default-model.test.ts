import { describe, expect, it } from 'vitest';
import { defaultEmbeddingModel } from '../../../src/core/vector-stores';
import type { ModelInfo } from '../../../src/engine/types';

const model = (id: string, capabilities: ModelInfo['capabilities']): ModelInfo => ({
  id,
  owned_by: 'x',
  created: 0,
  contextWindow: 512,
  vision: false,
  capabilities,
});

describe('the default embedding model of vector stores', () => {
  it('is the smallest listed embedding model other than scripted (web-llm lists m before s)', () => {
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

  it('is scripted when nothing else embeds', () => {
    expect(defaultEmbeddingModel([model('scripted', ['chat', 'embeddings']), model('llm', ['chat'])])).toBe(
      'scripted',
    );
  });
});
