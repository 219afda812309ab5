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
import type { ChatMessage } from '../../src/engine/types';
import { planChatRequest } from '../../src/engine/webllm/webllm-request';
import { type LlamaRenderer, llamaRenderer } from '../helpers/llama-render';
import { LLAMA_BUILD_MS } from '../helpers/llama-server';
import { request } from '../helpers/webllm-fakes';
import { webllmPrompt } from '../helpers/webllm-prompt';
import { CONVERSATIONS, described, type GoldenConversation } from '../unit/webllm/golden-conversations';
import { DIFFERENCES, NATIVE, type NativeGolden } from '../unit/webllm/golden-families';

/** A day other than Llama 3.1's literal default, so that a date taken from the wrong place shows. */
const NOW = new Date(Date.UTC(2025, 2, 14, 12));

/** The date Meta's Llama 3.1 template writes when the caller sets none. */
const PUBLISHED_DATE: Record<string, string> = { 'meta-llama-Llama-3.1-8B-Instruct': '26 Jul 2024' };

/** The conversation as a client hands it (llama.cpp parses call arguments for templates that take objects). */
function clientMessages(messages: ChatMessage[], callId = (id: string) => id): unknown[] {
  return messages.map((m) => {
    if (m.role === 'tool') return { role: 'tool', tool_call_id: callId(m.tool_call_id), content: m.content };
    if (m.role !== 'assistant') return m;
    return {
      role: 'assistant',
      content: m.content ?? '',
      ...(m.reasoning ? { reasoning_content: m.reasoning } : {}),
      ...(m.tool_calls ? { tool_calls: m.tool_calls.map((c) => ({ ...c, id: callId(c.id) })) } : {}),
    };
  });
}

async function published(r: LlamaRenderer, golden: NativeGolden, conversation: GoldenConversation) {
  const { eos_token: eos, ...extra } = golden.extra ?? {};
  const kwargs = {
    ...(conversation.tools ? { tools: [openAiTool(described)] } : golden.toolsOnly ? { tools: [] } : {}),
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

async function intab(golden: NativeGolden, conversation: GoldenConversation): Promise<string> {
  const { body } = planChatRequest(
    request({
      model: golden.model,
      messages: conversation.messages,
      tools: conversation.tools ? [described] : [],
      reasoningEffort: conversation.effort ?? null,
    }),
    { vision: false },
    { now: NOW },
  );
  return webllmPrompt(golden.conv, body);
}

describe.each(NATIVE)('$model: web-llm’s prompt is llama.cpp’s rendering of the template', (golden) => {
  let r: LlamaRenderer;
  beforeAll(async () => {
    r = await llamaRenderer({ template: golden.template });
  }, LLAMA_BUILD_MS);
  afterAll(() => r?.stop());
  const cases = Object.entries(CONVERSATIONS).filter(([, c]) => c.tools || !golden.toolsOnly);
  const differs = (name: string) =>
    DIFFERENCES.find((d) => d.model.test(golden.model) && d.conversations.includes(name));
  it.each(cases.filter(([name]) => !differs(name)))('%s', async (_name, conversation) => {
    expect(await intab(golden, conversation)).toBe(await published(r, golden, conversation));
  });
  const differing = cases.flatMap(([name, c]) => {
    const d = differs(name);
    return d ? [[`${name}: ${d.why}`, c, d] as const] : [];
  });
  if (differing.length > 0)
    it.each(differing)('%s', async (_name, conversation, d) => {
      const prompt = await intab(golden, conversation);
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
