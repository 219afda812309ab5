/**
 * Chat history, rewritten into the shapes web-llm accepts for every model's chat template.
 */
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from '@mlc-ai/web-llm';
import { invalidRequest } from '../core/api-error';
import type { ChatContentPart, ChatMessage, ChatToolCall } from './types';

interface UserTurn {
  text: string[];
  images: string[];
}

/**
 * Converts the core's chat messages to web-llm's, working around what web-llm rejects:
 * - one system message, first (`SystemMessageOrderError` otherwise), extra sections appended to it;
 * - no `tool` role and no assistant `tool_calls` outside Hermes templates, so both become text in the
 *   `{"tool_calls":[...]}` format the tool prompt teaches, and tool results become user turns;
 * - assistant content must be a string, never null (`ContentTypeError`);
 * - a user turn holds at most one text part (`MultipleTextContentError`) and images only on vision
 *   models (`UserMessageContentErrorForNonVLM`);
 * - turns of the same role are merged, since many templates (Gemma, Mistral) require alternation.
 *
 * @example
 * toWebLLMMessages([{ role: 'user', content: 'Hi' }], { system: [], vision: false, modelId: 'm' });
 * // [{ role: 'user', content: 'Hi' }]
 */
export function toWebLLMMessages(
  messages: ChatMessage[],
  opts: { system: string[]; vision: boolean; modelId: string },
): ChatCompletionMessageParam[] {
  const system = [...messages.flatMap((m) => (m.role === 'system' ? [m.content] : [])), ...opts.system];
  const out: ChatCompletionMessageParam[] = [];
  if (system.some((s) => s !== ''))
    out.push({ role: 'system', content: system.filter(Boolean).join('\n\n') });
  let user: UserTurn | null = null;
  let assistant: string[] | null = null;
  const flush = () => {
    if (user) out.push({ role: 'user', content: userContent(user) });
    if (assistant) out.push({ role: 'assistant', content: assistant.join('\n\n') });
    user = null;
    assistant = null;
  };
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'assistant') {
      if (user) flush();
      assistant ??= [];
      const text = assistantText(m.content, m.tool_calls);
      if (text !== '') assistant.push(text);
      continue;
    }
    if (assistant) flush();
    user ??= { text: [], images: [] };
    if (m.role === 'tool') {
      user.text.push(`Tool result for ${m.name} (call ${m.tool_call_id}):\n${m.content}`);
      continue;
    }
    addUserContent(user, m.content, opts);
  }
  flush();
  return out;
}

/**
 * An assistant turn as the model would have written it, tool calls included.
 *
 * @example
 * assistantText(null, [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }]);
 * // '{"tool_calls":[{"name":"f","arguments":{}}]}'
 */
export function assistantText(content: string | null, toolCalls: ChatToolCall[] | undefined): string {
  const parts = content ? [content] : [];
  if (toolCalls && toolCalls.length > 0) {
    const calls = toolCalls.map((c) => ({
      name: c.function.name,
      arguments: parseOrKeep(c.function.arguments),
    }));
    parts.push(JSON.stringify({ tool_calls: calls }));
  }
  return parts.join('\n');
}

function addUserContent(
  turn: UserTurn,
  content: string | ChatContentPart[],
  opts: { vision: boolean; modelId: string },
): void {
  if (typeof content === 'string') {
    turn.text.push(content);
    return;
  }
  const text = content.flatMap((p) => (p.type === 'text' ? [p.text] : []));
  if (text.length > 0) turn.text.push(text.join('\n'));
  for (const part of content) {
    if (part.type !== 'image_url') continue;
    if (!opts.vision) {
      throw invalidRequest(
        'input',
        `The model '${opts.modelId}' does not accept image input.`,
        'unsupported_value',
      );
    }
    turn.images.push(part.image_url.url);
  }
}

function userContent(turn: UserTurn): string | ChatCompletionContentPart[] {
  const text = turn.text.join('\n\n');
  if (turn.images.length === 0) return text;
  // web-llm's legacy image path formats the one text part into the template and would print
  // "undefined" without it, so an image-only turn still carries an empty text part.
  const images = turn.images.map(
    (url): ChatCompletionContentPart => ({ type: 'image_url', image_url: { url } }),
  );
  return [{ type: 'text', text }, ...images];
}

function parseOrKeep(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}
