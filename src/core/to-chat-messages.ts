import type { ResponseItem } from 'openai/resources/responses/responses';
import type { ChatContentPart, ChatMessage } from '../engine/types';
import { invalidRequest } from './api-error';

export interface ChatTranslationOptions {
  /** Whether the model takes images; when false an image part is a 400 naming the part. */
  vision: boolean;
}

/**
 * Turns instructions and Responses items (history first, then this request's input) into the chat
 * messages engines take. Consecutive function calls become one assistant message with several
 * `tool_calls`, as chat templates expect; reasoning items are not shown to the model again.
 *
 * @example
 * toChatMessages('Be brief.', items, { vision: false }) // → [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }]
 */
export function toChatMessages(
  instructions: string | null,
  items: ResponseItem[],
  opts: ChatTranslationOptions,
): ChatMessage[] {
  const out: ChatMessage[] = instructions ? [{ role: 'system', content: instructions }] : [];
  const toolNames = new Map<string, string>();
  items.forEach((item, i) => {
    switch (item.type) {
      case 'message': {
        if (item.role === 'assistant') {
          const text = item.content.map((p) => (p.type === 'output_text' ? p.text : p.refusal)).join('');
          out.push({ role: 'assistant', content: text });
        } else if (item.role === 'user') {
          out.push({ role: 'user', content: userContent(item.content, i, opts) });
        } else {
          // Chat templates know one system role; `developer` is OpenAI's newer name for it.
          out.push({ role: 'system', content: textOf(item.content, i) });
        }
        return;
      }
      case 'function_call': {
        toolNames.set(item.call_id, item.name);
        const call = {
          id: item.call_id,
          type: 'function' as const,
          function: { name: item.name, arguments: item.arguments },
        };
        const prev = out.at(-1);
        if (prev?.role === 'assistant' && prev.tool_calls && !prev.content) prev.tool_calls.push(call);
        else out.push({ role: 'assistant', content: null, tool_calls: [call] });
        return;
      }
      case 'function_call_output': {
        const content = typeof item.output === 'string' ? item.output : textOf(item.output, i);
        out.push({
          role: 'tool',
          tool_call_id: item.call_id,
          name: toolNames.get(item.call_id) ?? 'unknown',
          content,
        });
        return;
      }
      default:
        return;
    }
  });
  return out;
}

type Part = { type: string; text?: string; image_url?: string | null; file_data?: string; filename?: string };

function userContent(
  parts: readonly Part[],
  i: number,
  opts: ChatTranslationOptions,
): string | ChatContentPart[] {
  if (parts.every((p) => p.type === 'input_text')) return parts.map((p) => p.text ?? '').join('\n');
  return parts.map((p, j): ChatContentPart => {
    if (p.type === 'input_image') {
      if (!opts.vision) {
        throw invalidRequest(
          `input[${i}].content[${j}]`,
          'Image input is not supported by this model.',
          'unsupported_value',
        );
      }
      if (!p.image_url)
        throw invalidRequest(
          `input[${i}].content[${j}].image_url`,
          'An image_url is required: file ids are not available offline.',
          'missing_required_parameter',
        );
      return { type: 'image_url', image_url: { url: p.image_url } };
    }
    return { type: 'text', text: partText(p, i, j) };
  });
}

function textOf(parts: readonly Part[], i: number): string {
  return parts.map((p, j) => partText(p, i, j)).join('\n');
}

/** Text of a text or file part; binary files cannot be read by a text model. */
function partText(p: Part, i: number, j: number): string {
  if (p.type === 'input_text') return p.text ?? '';
  if (p.type === 'input_file') return fileText(p, `input[${i}].content[${j}]`);
  throw invalidRequest(
    `input[${i}].content[${j}].type`,
    `Content of type '${p.type}' is not supported here.`,
    'invalid_value',
  );
}

const TEXT_MIME = /^(text\/|application\/(json|xml|javascript|x-ndjson|csv|yaml|x-yaml|toml|sql))/;

function fileText(p: Part, param: string): string {
  if (!p.file_data) {
    throw invalidRequest(
      param,
      'Only inline files (`file_data`) can be read offline; `file_id` and `file_url` are not supported.',
      'unsupported_value',
    );
  }
  const m = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(p.file_data);
  const mime = m ? m[1] || 'text/plain' : 'text/plain';
  if (!TEXT_MIME.test(mime)) {
    throw invalidRequest(
      `${param}.file_data`,
      `Unsupported file type '${mime}': intab reads text files only. Convert the document to text (e.g. extract a PDF's text) and send it as input_text or a text/plain file.`,
      'unsupported_file',
    );
  }
  const payload = m ? (m[3] ?? '') : p.file_data;
  const base64 = m ? Boolean(m[2]) : true;
  try {
    const text = base64
      ? new TextDecoder('utf-8', { fatal: true }).decode(
          Uint8Array.from(atob(payload), (c) => c.charCodeAt(0)),
        )
      : decodeURIComponent(payload);
    return p.filename ? `[file: ${p.filename}]\n${text}` : text;
  } catch {
    throw invalidRequest(
      `${param}.file_data`,
      'The file could not be decoded as UTF-8 text.',
      'invalid_value',
    );
  }
}
