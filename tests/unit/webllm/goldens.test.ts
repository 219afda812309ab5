/**
 * For every family with a native tool format, the prompt web-llm builds from what intab sends (web-llm's
 * own `Conversation`, the model's conversation template, the `conv_config` corrections intab passes to
 * `reload`) must equal, byte for byte, what the family's published Jinja chat template renders for the
 * same conversation (`@huggingface/jinja`, templates in tests/fixtures/templates with their sources),
 * tools and tool history included; where intab differs on purpose, the difference is asserted by itself.
 * BOS is a token id in web-llm, never text, so it renders empty. The families taught a borrowed format
 * are checked in goldens-taught.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { hfMessages, renderTemplate } from '../../helpers/published-template';
import { request } from '../../helpers/webllm-fakes';
import { webllmPrompt } from '../../helpers/webllm-prompt';
import { CONVERSATIONS, described, type GoldenConversation } from './golden-conversations';
import { DIFFERENCES, NATIVE, type NativeGolden } from './golden-families';

/** A day other than Llama 3.1's literal default, so that a date taken from the wrong place shows. */
const NOW = new Date(Date.UTC(2025, 2, 14, 12));

function render(golden: NativeGolden, conversation: GoldenConversation): string {
  const tool = { name: described.name, description: described.description, parameters: described.parameters };
  return renderTemplate(golden.template, {
    messages: hfMessages(conversation.messages, golden.callId, {
      thinkingChunks: golden.thinkingChunks ?? false,
    }),
    ...(conversation.tools ? { tools: [{ type: 'function', function: tool }] } : {}),
    ...(conversation.effort === 'none' ? { enable_thinking: false } : {}),
    ...golden.extra,
  });
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

describe.each(NATIVE)('$model: web-llm’s prompt is the published template’s', (golden) => {
  const cases = Object.entries(CONVERSATIONS).filter(([, c]) => c.tools || !golden.toolsOnly);
  const differs = (name: string) =>
    DIFFERENCES.find((d) => d.model.test(golden.model) && d.conversations.includes(name));
  it.each(cases.filter(([name]) => !differs(name)))('%s', async (_name, conversation) => {
    expect(await intab(golden, conversation)).toBe(render(golden, conversation));
  });
  const differing = cases.flatMap(([name, c]) => {
    const d = differs(name);
    return d ? [[`${name}: ${d.why}`, c, d] as const] : [];
  });
  if (differing.length > 0)
    it.each(differing)('%s', async (_name, conversation, d) => {
      const prompt = await intab(golden, conversation);
      if (d.refused) {
        expect(() => render(golden, conversation)).toThrow(d.refused);
        expect(prompt).toContain(d.intab);
        return;
      }
      const expected = render(golden, conversation);
      expect(expected.split(d.template ?? '').length, 'the template renders it once').toBe(2);
      expect(prompt).not.toBe(expected);
      expect(prompt).toBe(expected.replace(d.template ?? '', d.intab ?? ''));
    });
});
