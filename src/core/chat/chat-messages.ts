import { invalidRequest } from '../../common/api-error';
import type { ChatContentPart, ChatMessage, ChatToolCall } from '../../engine/types';
import { checkImageUrl, fileText } from '../inputs/input-files';
import { customCallAsFunction } from './chat-custom-tools';
import type { ChatMessageParam } from './chat-schema';

export interface ChatMessageOptions {
  /** Whether the model takes images; when false an image part is a 400 naming the part. */
  vision: boolean;
  /** Named in errors. */
  modelId: string;
  /** The app's origin: an image URL on it that reaches the API is refused (see `checkImageUrl`). */
  origin?: string | null;
}

type UserParam = Extract<ChatMessageParam, { role: 'user' }>;
type AssistantParam = Extract<ChatMessageParam, { role: 'assistant' }>;

/**
 * Turns Chat Completions `messages` into the engine's chat messages. `developer` becomes `system`
 * (chat templates know one system role); a `tool` message gets the name of the call it answers,
 * which chat templates print; text files (`file` parts with `file_data`) are read inline. What a
 * local model cannot take (audio, file ids, images on a text-only model) is a 400 naming the part.
 * OpenAI's own ordering rule holds: a tool message answers a call of an earlier assistant message,
 * and every call gets its answer before the next non-tool message.
 *
 * @example
 * toEngineMessages([{ role: 'developer', content: 'Be brief.' }, { role: 'user', content: 'hi' }], { vision: false, modelId: 'scripted' })
 * // → [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }]
 */
export function toEngineMessages(messages: ChatMessageParam[], opts: ChatMessageOptions): ChatMessage[] {
  const out: ChatMessage[] = [];
  // Calls of the last assistant message still waiting for their tool message: id → name.
  let waiting = new Map<string, string>();
  let callsAt = -1;
  messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    if (m.role !== 'tool' && waiting.size > 0) throw unanswered(callsAt, waiting);
    switch (m.role) {
      case 'system':
      case 'developer':
        out.push({ role: 'system', content: joinText(m.content) });
        return;
      case 'user':
        out.push({ role: 'user', content: userContent(m.content, `${at}.content`, opts) });
        return;
      case 'assistant': {
        const message = assistantMessage(m, at);
        waiting = new Map((message.tool_calls ?? []).map((c) => [c.id, c.function.name]));
        callsAt = i;
        out.push(message);
        return;
      }
      case 'tool': {
        const name = waiting.get(m.tool_call_id);
        if (name === undefined) {
          throw invalidRequest(
            `${at}.role`,
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          );
        }
        waiting.delete(m.tool_call_id);
        out.push({ role: 'tool', tool_call_id: m.tool_call_id, name, content: joinText(m.content) });
        return;
      }
      case 'function':
        throw invalidRequest(
          `${at}.role`,
          "Messages with role 'function' (the deprecated function calling) are not supported by intab: send 'tool' messages that answer 'tool_calls'.",
          'unsupported_value',
        );
    }
  });
  if (waiting.size > 0) throw unanswered(callsAt, waiting);
  return out;
}

/** OpenAI's 400 for an assistant message whose calls did not all get a tool message. */
function unanswered(callsAt: number, waiting: Map<string, string>) {
  return invalidRequest(
    `messages[${callsAt}].role`,
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...waiting.keys()].join(', ')}`,
  );
}

function assistantMessage(m: AssistantParam, at: string): Extract<ChatMessage, { role: 'assistant' }> {
  if (m.audio) {
    throw invalidRequest(
      `${at}.audio`,
      'Audio replies are not supported by intab: local models write text only. Send the transcript as content.',
      'unsupported_value',
    );
  }
  if (m.function_call) {
    throw invalidRequest(
      `${at}.function_call`,
      "The deprecated 'function_call' is not supported by intab: send 'tool_calls' instead.",
      'unsupported_value',
    );
  }
  const calls: ChatToolCall[] = (m.tool_calls ?? []).map((c) => {
    // The schema takes function and custom calls only; a custom one is shown as the function call it stands for.
    if (c.type === 'custom') return customCallAsFunction(c);
    return {
      id: c.id,
      type: 'function',
      function: { name: c.function.name, arguments: c.function.arguments },
    };
  });
  const parts = typeof m.content === 'string' ? [m.content] : (m.content ?? []).map(partText);
  // A refusal stands in for the text a model refused to write; templates have no place for both.
  const text = parts.join('') || m.refusal || '';
  return {
    role: 'assistant',
    content: text === '' && calls.length > 0 ? null : text,
    ...(calls.length > 0 && { tool_calls: calls }),
  };
}

function partText(p: { type: 'text'; text: string } | { type: 'refusal'; refusal: string }): string {
  return p.type === 'text' ? p.text : p.refusal;
}

function joinText(content: string | { text: string }[]): string {
  return typeof content === 'string' ? content : content.map((p) => p.text).join('\n');
}

function userContent(
  content: UserParam['content'],
  path: string,
  opts: ChatMessageOptions,
): string | ChatContentPart[] {
  if (typeof content === 'string') return content;
  if (content.every((p) => p.type === 'text')) return joinText(content as { text: string }[]);
  return content.map((p, j): ChatContentPart => {
    const param = `${path}[${j}]`;
    if (p.type === 'text') return { type: 'text', text: p.text };
    // fileText reads `file_data` (text types only) and refuses file ids with a hint.
    if (p.type === 'file') return { type: 'text', text: fileText(p.file, `${param}.file`) };
    if (p.type === 'input_audio') {
      throw invalidRequest(
        `${param}.type`,
        'Audio input is not supported by intab: local models read text (and images on vision models). Send a transcript as text.',
        'unsupported_value',
      );
    }
    if (!opts.vision) {
      throw invalidRequest(
        param,
        `Image input is not supported by the model '${opts.modelId}': it reads text only. Remove the image_url part or pick a vision model.`,
        'unsupported_value',
      );
    }
    checkImageUrl(p.image_url.url, `${param}.image_url.url`, opts.origin ?? null);
    return { type: 'image_url', image_url: { url: p.image_url.url } };
  });
}
