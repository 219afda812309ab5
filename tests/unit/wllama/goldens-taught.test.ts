/**
 * The families taught a borrowed tool format (Phi-3.5, Phi-4-mini, Gemma 2, Gemma 3, SmolLM2, the
 * DeepSeek-R1 distills), on wllama: llama.cpp renders intab's messages with the GGUF's own template,
 * and that rendering (the published template, rendered with `@huggingface/jinja`) must equal the
 * template's rendering of the conversation's turns with the tool text, calls and results written
 * by hand (tests/unit/webllm/golden-taught-families.ts), over the twelve golden conversations.
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import { planWllamaRequest } from '../../../src/engine/wllama/wllama-request';
import { generateRequest } from '../../helpers/generate-request';
import { weather } from '../webllm/families';
import { CONVERSATIONS } from '../webllm/golden-conversations';
import { TAUGHT, template, turns } from '../webllm/golden-taught-families';

describe.each(TAUGHT)(
  '$model: the prompt llama.cpp renders is the published template’s, with the taught format',
  (family) => {
    it.each(Object.entries(CONVERSATIONS))('%s', async (_name, conversation) => {
      const { params } = await planWllamaRequest(
        generateRequest({
          model: family.model,
          messages: conversation.messages,
          tools: conversation.tools ? [weather] : [],
          reasoningEffort: conversation.effort ?? null,
        }),
        { family: familyOf(family.model), invalidUtf8: [] },
      );
      const vars = { bos_token: '', eos_token: '', add_generation_prompt: true, ...family.extra };
      const ours = template(family.template).render({
        messages: params.messages,
        ...params.chat_template_kwargs,
        ...vars,
      });
      const expected = template(family.template).render({
        messages: turns(family, conversation.messages, conversation.tools),
        ...vars,
      });
      expect(ours).toBe(expected);
    });
  },
);
