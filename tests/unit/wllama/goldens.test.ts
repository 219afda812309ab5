/**
 * Issue 28 (goldens on both engines): on wllama, llama.cpp renders the messages and template
 * variables intab hands it with the GGUF's own chat template. For every family with a native tool
 * format, that rendering (the published template, as the family's GGUFs carry it, rendered with
 * `@huggingface/jinja` as llama.cpp's Jinja engine would) must equal, byte for byte, the template's
 * rendering of the same conversation in the shape a Hugging Face client gives it (calls as objects,
 * raw results, reasoning as `reasoning_content`), over the twelve golden conversations. Where intab
 * differs on purpose, the difference is asserted by itself. Real llama.cpp renderings of some of
 * these are checked in Chromium (tests/e2e/wllama-formats.test.ts and neighbours).
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import { goldenCases, wllamaGoldenParams } from '../../helpers/golden-plans';
import { asLlamaCppHandsThem, hfMessages, renderTemplate } from '../../helpers/published-template';
import { type GoldenConversation, goldenTools } from '../webllm/golden-conversations';
import { NATIVE, type NativeGolden } from '../webllm/golden-families';
import { WLLAMA_DIFFERENCES, WLLAMA_ONLY } from './golden-differences';

function published(golden: NativeGolden, conversation: GoldenConversation): string {
  const tools = goldenTools(conversation).map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
  return renderTemplate(golden.template, {
    messages: hfMessages(conversation.messages, golden.callId, {
      thinkingChunks: golden.thinkingChunks ?? false,
    }),
    ...(conversation.tools ? { tools } : {}),
    ...(conversation.effort === 'none' ? { enable_thinking: false } : {}),
    ...golden.extra,
  });
}

/** What llama.cpp renders from intab's planned request: the same template over intab's inputs. */
async function intab(golden: NativeGolden, conversation: GoldenConversation): Promise<string> {
  const params = await wllamaGoldenParams(golden, conversation, familyOf(golden.model));
  return renderTemplate(golden.template, {
    messages: asLlamaCppHandsThem(params.messages),
    // NousResearch's tool-use template loops over `tools` unconditionally.
    ...(golden.toolsOnly ? { tools: [] } : {}),
    ...params.chat_template_kwargs,
    ...golden.extra,
  });
}

describe.each([...NATIVE, ...WLLAMA_ONLY])(
  '$model: the prompt llama.cpp renders is the published template’s',
  (golden) => {
    const { alike, differing } = goldenCases(golden, WLLAMA_DIFFERENCES);
    it.each(alike)('%s', async (_name, conversation) => {
      expect(await intab(golden, conversation)).toBe(published(golden, conversation));
    });
    if (differing.length > 0)
      it.each(differing)('%s', async (_name, conversation, d) => {
        const prompt = await intab(golden, conversation);
        if (d.refused) {
          expect(() => published(golden, conversation)).toThrow(d.refused);
          expect(prompt).toContain(d.intab);
          return;
        }
        const expected = published(golden, conversation);
        expect(expected.split(d.template ?? '').length, 'the template renders it once').toBe(2);
        expect(prompt).not.toBe(expected);
        expect(prompt).toBe(expected.replace(d.template ?? '', d.intab ?? ''));
      });
  },
);
