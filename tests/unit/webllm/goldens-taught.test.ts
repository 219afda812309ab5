/**
 * The families without a `<tool_call>`-style native format of their own that web-llm ships
 * (Phi-3.5, Phi-4-mini, Gemma 2, Gemma 3, SmolLM2, the DeepSeek-R1 distills of Qwen and Llama): web-llm's prompt from
 * what intab sends must equal the family's published template rendering the conversation's turns and
 * markers, with the tool text, calls and results intab writes into those turns given here as fixed
 * strings written by hand, not taken from the code under test.
 */
import { describe, expect, it } from 'vitest';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { request } from '../../helpers/webllm-fakes';
import { webllmPrompt } from '../../helpers/webllm-prompt';
import { weather } from './families';
import { CONVERSATIONS } from './golden-conversations';
import { TAUGHT, TAUGHT_TOOLS, template, turns } from './golden-taught-families';

describe.each(TAUGHT)(
  '$model: web-llm’s prompt is the published template’s, with the taught format',
  (family) => {
    it.each(Object.entries(CONVERSATIONS))('%s', async (_name, conversation) => {
      const { body } = planChatRequest(
        request({
          model: family.model,
          messages: conversation.messages,
          tools: conversation.tools ? [weather] : [],
          reasoningEffort: conversation.effort ?? null,
        }),
        { vision: false },
        { now: new Date(Date.UTC(2025, 2, 14, 12)) },
      );
      const expected = template(family.template).render({
        messages: turns(family, conversation.messages, conversation.tools),
        bos_token: '',
        eos_token: '',
        add_generation_prompt: true,
        ...family.extra,
      });
      expect(await webllmPrompt(family.conv, body)).toBe(expected);
    });
  },
);

describe('the taught tool text', () => {
  it('is Qwen2.5’s, word for word, as its published template renders it', () => {
    const rendered = template('Qwen-Qwen2.5-7B-Instruct').render({
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'Hi' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: weather.name, description: weather.description, parameters: weather.parameters },
        },
      ],
      add_generation_prompt: true,
    });
    expect(rendered).toContain(`<|im_start|>system\nS\n\n${TAUGHT_TOOLS}<|im_end|>\n`);
  });
});
