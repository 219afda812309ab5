/**
 * Issue 33 (goldens from llama.cpp's renderer), web-llm: the goldens of
 * tests/unit/webllm/goldens.test.ts with llama.cpp as the reference renderer of the published
 * template instead of `@huggingface/jinja` (which differs from Python's Jinja on `strip('\n')`,
 * `lstrip('\n')` and `true | string`, all in Qwen's templates). The template is rendered as
 * published: its variables set as a Hugging Face client sets them (`tools` as a template variable,
 * not llama.cpp's tool handling), the published date where llama.cpp would write today's. The
 * differences intab keeps on purpose are asserted by themselves, as in the unit goldens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiTool } from '../../src/engine/tool-formats/shared';
import { goldenCases, webllmGoldenPrompt } from '../helpers/golden-plans';
import { clientMessages, type LlamaRenderer, llamaRenderer } from '../helpers/llama-render';
import { LLAMA_BUILD_MS } from '../helpers/llama-server';
import {
  CHOICE_CONVERSATIONS,
  CONVERSATIONS,
  type GoldenConversation,
  goldenTools,
  LLAMA_CPP_CONVERSATIONS,
} from '../unit/webllm/golden-conversations';
import { DIFFERENCES, NATIVE, type NativeGolden } from '../unit/webllm/golden-families';

/** The date Meta's Llama 3.1 template writes when the caller sets none. */
const PUBLISHED_DATE: Record<string, string> = { 'meta-llama-Llama-3.1-8B-Instruct': '26 Jul 2024' };

async function published(r: LlamaRenderer, golden: NativeGolden, conversation: GoldenConversation) {
  const { eos_token: eos, ...extra } = golden.extra ?? {};
  const kwargs = {
    ...(conversation.tools
      ? { tools: goldenTools(conversation).map(openAiTool) }
      : golden.toolsOnly
        ? { tools: [] }
        : {}),
    ...(conversation.effort === 'none' ? { enable_thinking: false } : {}),
    ...extra,
  };
  let prompt = await r.render({
    messages: clientMessages(conversation.messages, golden.callId),
    ...(Object.keys(kwargs).length > 0 ? { chat_template_kwargs: kwargs } : {}),
  });
  // The test GGUF's EOS is Llama 3's; the family's own is what the golden names.
  if (typeof eos === 'string') prompt = prompt.replaceAll('<|eot_id|>', eos);
  const date = PUBLISHED_DATE[golden.template];
  return date ? prompt.replace(/Today Date: \d\d \w{3} \d{4}/, `Today Date: ${date}`) : prompt;
}

/** The unit goldens' conversations, and those llama.cpp alone renders as a client's Python would. */
const ALL_CONVERSATIONS = { ...CONVERSATIONS, ...CHOICE_CONVERSATIONS, ...LLAMA_CPP_CONVERSATIONS };

describe.each(NATIVE)('$model: web-llm’s prompt is llama.cpp’s rendering of the template', (golden) => {
  let r: LlamaRenderer;
  beforeAll(async () => {
    r = await llamaRenderer({ template: golden.template });
  }, LLAMA_BUILD_MS);
  afterAll(() => r?.stop());
  const { alike, differing } = goldenCases(golden, DIFFERENCES, ALL_CONVERSATIONS);
  it.each(alike)('%s', async (_name, conversation) => {
    expect(await webllmGoldenPrompt(golden, conversation)).toBe(await published(r, golden, conversation));
  });
  if (differing.length > 0)
    it.each(differing)('%s', async (_name, conversation, d) => {
      const prompt = await webllmGoldenPrompt(golden, conversation);
      if (d.refused) {
        await expect(published(r, golden, conversation)).rejects.toThrow();
        expect(prompt).toContain(d.intab);
        return;
      }
      const expected = await published(r, golden, conversation);
      expect(expected.split(d.template ?? '').length, 'the template renders it once').toBe(2);
      expect(prompt).toBe(expected.replace(d.template ?? '', d.intab ?? ''));
    });
});
