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
import { goldenCases, webllmGoldenPrompt } from '../../helpers/golden-plans';
import { hfMessages, renderTemplate } from '../../helpers/published-template';
import { type GoldenConversation, goldenTools } from './golden-conversations';
import { DIFFERENCES, NATIVE, type NativeGolden } from './golden-families';

function render(golden: NativeGolden, conversation: GoldenConversation): string {
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

describe.each(NATIVE)('$model: web-llm’s prompt is the published template’s', (golden) => {
  const { alike, differing } = goldenCases(golden, DIFFERENCES);
  it.each(alike)('%s', async (_name, conversation) => {
    expect(await webllmGoldenPrompt(golden, conversation)).toBe(render(golden, conversation));
  });
  if (differing.length > 0)
    it.each(differing)('%s', async (_name, conversation, d) => {
      const prompt = await webllmGoldenPrompt(golden, conversation);
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
