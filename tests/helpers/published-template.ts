/**
 * A family's published chat template (tests/fixtures/templates, with their sources in its README)
 * rendered with `@huggingface/jinja` over a conversation in the shape a Hugging Face client hands a
 * template: what both engines' goldens compare intab's prompt with.
 */
import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import type { ChatMessage } from '../../src/engine/types';

/**
 * Renders a vendored template (file name without `.jinja`) with `vars`; BOS and EOS render empty
 * unless `vars` names them, and a generation prompt is added.
 *
 * @example
 * renderTemplate('Qwen3.5-4B', { messages: [{ role: 'user', content: 'Hi' }] });
 */
export function renderTemplate(template: string, vars: Record<string, unknown>): string {
  const source = readFileSync(new URL(`../fixtures/templates/${template}.jinja`, import.meta.url), 'utf8');
  return new Template(source).render({ bos_token: '', eos_token: '', add_generation_prompt: true, ...vars });
}

/**
 * Messages as a Hugging Face client hands them to a template: arguments as objects, content a
 * string, reasoning as `reasoning_content`, call ids as the template requires them.
 *
 * @example
 * hfMessages([{ role: 'user', content: 'Hi' }]); // [{ role: 'user', content: 'Hi' }]
 */
export function hfMessages(
  messages: ChatMessage[],
  callId = (id: string) => id,
  opts: { thinkingChunks?: boolean } = {},
): unknown[] {
  return messages.map((m) => {
    if (m.role === 'tool') return { ...m, tool_call_id: callId(m.tool_call_id) };
    if (m.role !== 'assistant') return m;
    const { reasoning, ...rest } = m;
    // Ministral 3's template reads reasoning only as a `thinking` chunk before the text, which is how
    // llama.cpp hands it `reasoning_content` (common/parsers/ministral3.cpp).
    const chunks =
      reasoning && opts.thinkingChunks
        ? [
            { type: 'thinking', thinking: reasoning },
            ...(m.content ? [{ type: 'text', text: m.content }] : []),
          ]
        : null;
    return {
      ...rest,
      content: chunks ?? m.content ?? '',
      ...(reasoning && !chunks ? { reasoning_content: reasoning } : {}),
      ...(m.tool_calls
        ? {
            tool_calls: m.tool_calls.map((c) => ({
              ...c,
              id: callId(c.id),
              function: { ...c.function, arguments: JSON.parse(c.function.arguments) },
            })),
          }
        : {}),
    };
  });
}

/**
 * wllama's messages as llama.cpp hands them to a template that takes object arguments (every
 * published template here with calls: llama.cpp's capability check renders a call both ways): each
 * call's arguments parsed from their JSON text. tests/e2e/wllama-template-calls.test.ts checks that
 * real llama.cpp does.
 *
 * @example
 * renderTemplate(file, { messages: asLlamaCppHandsThem(params.messages) });
 */
export function asLlamaCppHandsThem(messages: readonly object[]): unknown[] {
  return messages.map((m) => {
    const calls = (m as { tool_calls?: Array<{ function: { name: string; arguments: string } }> }).tool_calls;
    if (!calls) return m;
    return {
      ...m,
      tool_calls: calls.map((c) => ({
        ...c,
        function: { ...c.function, arguments: JSON.parse(c.function.arguments) },
      })),
    };
  });
}
