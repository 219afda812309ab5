/**
 * Issue 28 (Qwen3.5 loops refill the KV cache on web-llm): can intab send a tool loop's second turn
 * so that web-llm 0.2.86 reuses the first turn's KV cache? web-llm reuses it only when the
 * conversation it holds (the first request's messages, then the reply it decoded, stored by
 * `finishReply(outputMessage)`) equals the next request's history message by message
 * (`compareConversationObject`, called from `preparePrefillInput`); the rendered text is not compared.
 *
 * For Qwen3.5 no history can be both what web-llm holds and what the published template renders:
 * the template opens the reply with `<think>\n` (the generation prompt), which web-llm writes as the
 * reply header (`role_empty_sep`), so the decoded message it holds starts after it; but written back
 * as history, the same turn must carry `<think>\n` in its content, since the role string and the
 * separator are shared by every assistant turn and the turns before the last user message have no
 * think block. Checked here at web-llm's own `Conversation`: the second prompt does extend the first
 * prompt plus the decoded text, byte for byte, yet web-llm does not reuse the cache; the one history
 * it would reuse renders a prompt that is not the template's. README's family notes say so.
 */
import { describe, expect, it } from 'vitest';
import { qwenXmlFormat } from '../../../src/engine/tool-formats/qwen-xml';
import type { ChatMessage } from '../../../src/engine/types';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { hfMessages, renderTemplate } from '../../helpers/published-template';
import { request } from '../../helpers/webllm-fakes';
import { webllmPrompt, webllmReusesCache } from '../../helpers/webllm-prompt';
import { described } from './golden-conversations';

const QWEN35 = 'Qwen3.5-0.8B-q4f16_1-MLC';
const TOOL = { name: described.name, description: described.description, parameters: described.parameters };
const ARGS = '{"city":"Paris"}';
const ask: ChatMessage = { role: 'user', content: 'Weather in Paris?' };
const loop: ChatMessage[] = [
  ask,
  {
    role: 'assistant',
    content: null,
    reasoning: 'The user wants Paris.',
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: ARGS } }],
  },
  { role: 'tool', tool_call_id: 'call_1', name: 'get_weather', content: '{"temp": 21}' },
];
/** What the model decodes after the reply header `<|im_start|>assistant\n<think>\n`. */
const DECODED = `The user wants Paris.\n</think>\n\n${qwenXmlFormat.renderCalls([
  { name: 'get_weather', arguments: ARGS, callId: 'call_1' },
])}`;

const body = (messages: ChatMessage[]) =>
  planChatRequest(request({ model: QWEN35, messages, tools: [described] }), { vision: false }).body;

describe('Qwen3.5 on web-llm 0.2.86: a tool loop cannot reuse the KV cache', () => {
  it('the second prompt extends the first plus the decoded reply, but the held message differs', async () => {
    const first = body([ask]);
    const second = body(loop);
    const held = (await webllmPrompt('qwen3_5', first)) + DECODED;
    const prompt = await webllmPrompt('qwen3_5', second);
    expect(prompt.startsWith(held)).toBe(true);
    expect(prompt).toBe(
      renderTemplate('Qwen3.5-4B', {
        messages: hfMessages(loop),
        tools: [{ type: 'function', function: TOOL }],
      }),
    );
    // intab's history turn is `<think>\n…`: web-llm holds the decoded text, without it.
    const sent = second.messages.find((m) => m.role === 'assistant');
    expect(sent?.content).toBe(`<think>\n${DECODED}`);
    expect(await webllmReusesCache('qwen3_5', first, DECODED, second)).toBe(false);
  });

  it('the history web-llm would reuse renders a prompt that is not the template’s', async () => {
    const first = body([ask]);
    const second = body(loop);
    const asHeld = {
      ...second,
      messages: second.messages.map((m) => (m.role === 'assistant' ? { ...m, content: DECODED } : m)),
    };
    expect(await webllmReusesCache('qwen3_5', first, DECODED, asHeld)).toBe(true);
    const prompt = await webllmPrompt('qwen3_5', asHeld);
    // The think block loses its opening tag: `<|im_start|>assistant\nThe user wants Paris.\n</think>`.
    expect(prompt).toContain('<|im_start|>assistant\nThe user wants Paris.\n</think>');
    expect(prompt).not.toBe(await webllmPrompt('qwen3_5', second));
  });
});
