/**
 * Issue 33: a GGUF names no family; its chat template is the fingerprint. Every published template
 * vendored in tests/fixtures/templates must be read as its own family from the template alone (the
 * GGUF's name says nothing here), QwQ's included, which Qwen3's fingerprint used to take.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectFamily } from '../../../src/engine/wllama/gguf-family';

const dir = new URL('../../fixtures/templates/', import.meta.url);

/** Each published template's family ('other': Phi-3.5, which has no family of its own: taught `<tool_call>`). */
const EXPECTED: Record<string, string> = {
  'HuggingFaceTB-SmolLM2-Instruct': 'smollm2',
  'NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use': 'hermes',
  'NousResearch-Hermes-3-Llama-3.1-8B-tool_use': 'hermes',
  'Qwen-QwQ-32B': 'qwq',
  'Qwen-Qwen2.5-7B-Instruct': 'qwen2.5',
  'Qwen-Qwen3-0.6B': 'qwen3',
  'Qwen3.5-4B': 'qwen3.5',
  'deepseek-ai-DeepSeek-R1-Distill-Llama-8B': 'deepseek-r1',
  'deepseek-ai-DeepSeek-R1-Distill-Qwen-32B': 'deepseek-r1',
  'google-gemma-2-2b-it': 'gemma2',
  'google-gemma-3-it': 'gemma3',
  'meta-llama-Llama-3.1-8B-Instruct': 'llama3.1',
  'meta-llama-Llama-3.2-3B-Instruct': 'llama3.1',
  'microsoft-Phi-3.5-mini-instruct': 'other',
  'microsoft-Phi-4-mini-instruct': 'phi4-mini',
  'mistralai-Ministral-3-14B-Reasoning-2512': 'ministral3',
  'mistralai-Mistral-7B-Instruct-v0.3': 'mistral',
  'mistralai-Mistral-Nemo-Instruct-2407': 'mistral',
};

describe('family detection from each published template', () => {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.jinja'))
    .map((f) => f.slice(0, -'.jinja'.length));

  it('covers every vendored template', () => {
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(files)('%s', (name) => {
    const chatTemplate = readFileSync(new URL(`${name}.jinja`, dir), 'utf8');
    expect(detectFamily({ chatTemplate, name: 'a GGUF', id: 'gguf' }).id).toBe(EXPECTED[name]);
  });
});
