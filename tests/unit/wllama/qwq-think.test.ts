/**
 * Issue 33, item 3: QwQ's published template ends the prompt inside the think block
 * (`<|im_start|>assistant\n<think>\n`). A QwQ GGUF was read as Qwen3 (whose fingerprint matched
 * first), so on wllama the reasoning came back as the answer with `</think>` in it, and its own tool
 * prompt was not used; under tools or JSON both engines' grammars demanded a second `<think>`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import { jsonAfterThinking } from '../../../src/engine/tool-formats/structural-tag';
import type { FunctionToolSpec } from '../../../src/engine/types';
import { detectFamily } from '../../../src/engine/wllama/gguf-family';
import { templateWritesTools } from '../../../src/engine/wllama/template-inputs';
import { planWllamaRequest } from '../../../src/engine/wllama/wllama-request';
import { generateRequest } from '../../helpers/generate-request';
import { renderTemplate } from '../../helpers/published-template';
import { ggufBytes } from '../../helpers/tiny-gguf';
import { webllmPrompt } from '../../helpers/webllm-prompt';
import { fakeWllamaEngine, runEngine } from '../../helpers/wllama-engine-rig';

const QWQ = readFileSync(new URL('../../fixtures/templates/Qwen-QwQ-32B.jinja', import.meta.url), 'utf8');

const weather: FunctionToolSpec = {
  name: 'get_weather',
  description: 'Current weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};

function qwqEngine(tokens: string[]) {
  const gguf = new Blob([
    ggufBytes([
      ['general.architecture', 'qwen2'],
      ['general.name', 'some model'],
      ['tokenizer.ggml.model', 'gpt2'],
      ['tokenizer.chat_template', QWQ],
      ['tokenizer.ggml.tokens', ['a', 'Ġb']],
    ]),
  ]);
  return fakeWllamaEngine({ tokens, models: [{ id: 'qwq', files: [gguf] }] });
}

describe('QwQ', () => {
  it('is detected by its template, not read as Qwen3, and its template writes its own tool prompt', () => {
    const family = detectFamily({ chatTemplate: QWQ, name: 'some model' });
    expect(family.id).toBe('qwq');
    expect(templateWritesTools(family)).toBe(true);
    // Qwen3's own template stays Qwen3's.
    const qwen3 = readFileSync(
      new URL('../../fixtures/templates/Qwen-Qwen3-0.6B.jinja', import.meta.url),
      'utf8',
    );
    expect(detectFamily({ chatTemplate: qwen3 }).id).toBe('qwen3');
  });

  it('on wllama: the text before `</think>` is the reasoning, the rest the answer', async () => {
    const { engine } = qwqEngine(['Let me', ' think.', '\n</think>', '\n\n', 'Hello.']);
    const chunks = await runEngine(engine, generateRequest({ model: 'qwq', maxOutputTokens: 5 }));
    const of = (type: string) =>
      chunks.flatMap((c) => (c.type === type && 'delta' in c ? [c.delta] : [])).join('');
    expect(of('reasoning')).toBe('Let me think.');
    expect(of('text')).toBe('Hello.');
  });

  it('on wllama: the grammar under tools and under JSON starts inside the block', async () => {
    const family = detectFamily({ chatTemplate: QWQ });
    for (const over of [
      { tools: [weather], toolChoice: 'required' as const },
      { format: { type: 'json_object' as const } },
    ]) {
      const { params } = await planWllamaRequest(generateRequest({ model: 'qwq', ...over }), {
        family,
        invalidUtf8: [],
      });
      expect(params.grammar).toMatch(/think ::= /);
      expect(params.grammar).not.toContain('"<think>"');
      expect(params.grammar).toContain('"</think>"');
    }
  });

  it('on web-llm: the JSON grammar starts inside the block, and the prompt ends inside it as published', async () => {
    const family = familyOf('QwQ-32B-q4f16_1-MLC');
    const tag = jsonAfterThinking({ type: 'json_object' }, family.reasoning) as unknown as {
      format: { elements: Array<{ begin?: string }> };
    };
    expect(tag.format.elements[0]?.begin).toBe('');
    const messages = [{ role: 'user' as const, content: 'Hi' }];
    const prompt = await webllmPrompt('qwen2', { model: 'QwQ-32B-q4f16_1-MLC', messages });
    expect(prompt).toBe(renderTemplate('Qwen-QwQ-32B', { messages }));
    expect(prompt.endsWith('<|im_start|>assistant\n<think>\n')).toBe(true);
  });
});
