/**
 * Issue 28 defect 2 on wllama: Qwen3.5's template writes `<think>\n{reasoning}\n</think>\n\n` in every
 * assistant turn after the last user message (a tool loop) and drops it before. llama.cpp renders the
 * messages intab hands it with the GGUF's template, so the turn's reasoning must reach the template
 * (as `reasoning_content`), not an empty think block written into the content. Checked by rendering
 * `toTemplateMessages`' output with the published template (`@huggingface/jinja`) and comparing it,
 * whole, with the template's rendering of the same conversation in OpenAI's shape.
 */
import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import type { ChatMessage } from '../../../src/engine/types';
import { toTemplateMessages } from '../../../src/engine/wllama/template-messages';

const source = readFileSync(new URL('../../fixtures/templates/Qwen3.5-4B.jinja', import.meta.url), 'utf8');
const render = (messages: unknown[]) =>
  new Template(source).render({ messages, add_generation_prompt: true, bos_token: '', eos_token: '' });

interface Turn {
  reasoning?: string;
  text: string;
  call?: { id: string; args: Record<string, unknown> };
}

/** A conversation: user text, then assistant turns each optionally calling `get_weather` with its result. */
function conversation(turns: Array<string | Turn>): { ours: ChatMessage[]; openAi: unknown[] } {
  const ours: ChatMessage[] = [];
  const openAi: unknown[] = [];
  for (const t of turns) {
    if (typeof t === 'string') {
      ours.push({ role: 'user', content: t });
      openAi.push({ role: 'user', content: t });
      continue;
    }
    const call = t.call
      ? {
          id: t.call.id,
          type: 'function' as const,
          function: { name: 'get_weather', arguments: JSON.stringify(t.call.args) },
        }
      : undefined;
    ours.push({
      role: 'assistant',
      content: t.text || null,
      ...(call ? { tool_calls: [call] } : {}),
      ...(t.reasoning ? { reasoning: t.reasoning } : {}),
    });
    openAi.push({
      role: 'assistant',
      content: t.text,
      ...(t.reasoning ? { reasoning_content: t.reasoning } : {}),
      ...(t.call
        ? { tool_calls: [{ ...call, function: { name: 'get_weather', arguments: t.call.args } }] }
        : {}),
    });
    if (t.call) {
      const result = `{"temp": ${Object.keys(t.call.args).length + 20}}`;
      ours.push({ role: 'tool', tool_call_id: t.call.id, name: 'get_weather', content: result });
      openAi.push({ role: 'tool', tool_call_id: t.call.id, content: result });
    }
  }
  return { ours, openAi };
}

function prompts(turns: Array<string | Turn>): { ours: string; published: string } {
  const { ours, openAi } = conversation(turns);
  const messages = toTemplateMessages(ours, {
    family: familyOf('Qwen3.5-4B'),
    system: [],
    toolSection: null,
    modelId: 'Qwen3.5-4B',
    anyLastTurn: true,
  });
  return { ours: render(messages), published: render(openAi) };
}

describe('Qwen3.5 on wllama: reasoning in a tool loop reaches the template', () => {
  it('writes each loop turn’s reasoning, and prose before a call, as the published template does', () => {
    const { ours, published } = prompts([
      'Weather in Paris, then Lyon?',
      {
        reasoning: 'I should look up Paris first.',
        text: 'Let me check Paris.',
        call: { id: 'c1', args: { city: 'Paris' } },
      },
      { reasoning: 'Now Lyon.', text: '', call: { id: 'c2', args: { city: 'Lyon', unit: 'c' } } },
    ]);
    expect(ours).toContain(
      '<think>\nI should look up Paris first.\n</think>\n\nLet me check Paris.\n\n<tool_call>',
    );
    expect(ours).toContain('<think>\nNow Lyon.\n</think>\n\n<tool_call>');
    expect(ours).toBe(published);
  });

  it('drops the reasoning of turns before the last user message, as the template does', () => {
    const { ours, published } = prompts([
      'Hi',
      { reasoning: 'A greeting.', text: 'Hello!' },
      'Weather in Paris?',
      { reasoning: 'Look it up.', text: '', call: { id: 'c1', args: { city: 'Paris' } } },
    ]);
    expect(ours).not.toContain('A greeting.');
    expect(ours).toContain('<think>\nLook it up.\n</think>\n\n<tool_call>');
    expect(ours).toBe(published);
  });

  it('still writes an empty think block for a loop turn without reasoning', () => {
    const { ours, published } = prompts([
      'Paris?',
      { text: '', call: { id: 'c1', args: { city: 'Paris' } } },
    ]);
    expect(ours).toContain('<|im_start|>assistant\n<think>\n\n</think>\n\n<tool_call>');
    expect(ours).toBe(published);
  });
});
