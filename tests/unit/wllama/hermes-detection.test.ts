/**
 * Hermes GGUFs carry NousResearch's tool_use template, ChatML with `<tool_call>` like Qwen2.5's, so
 * detecting the family by `<|im_start|>` and `<tool_call>` alone took them for Qwen2.5 and sent their
 * tool results as user turns (issue 28): the published templates must be read as the Hermes family.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectFamily } from '../../../src/engine/wllama/gguf-family';

const template = (name: string) =>
  readFileSync(new URL(`../../fixtures/templates/${name}.jinja`, import.meta.url), 'utf8');

describe('Hermes GGUF detection', () => {
  it.each(['NousResearch-Hermes-3-Llama-3.1-8B-tool_use', 'NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use'])(
    'reads %s as the Hermes family, whose results go in tool turns',
    (name) => {
      const family = detectFamily({ chatTemplate: template(name), name: 'some gguf' });
      expect(family.id).toBe('hermes');
      expect(family.resultRole).toBe('tool');
    },
  );

  it('still reads the published Qwen2.5 and Qwen3 templates as theirs', () => {
    expect(detectFamily({ chatTemplate: template('Qwen-Qwen2.5-7B-Instruct') }).id).toBe('qwen2.5');
    expect(detectFamily({ chatTemplate: template('Qwen-Qwen3-0.6B') }).id).toBe('qwen3');
    expect(detectFamily({ chatTemplate: template('Qwen3.5-4B') }).id).toBe('qwen3.5');
  });
});
