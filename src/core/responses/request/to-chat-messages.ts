import type { ResponseItem } from 'openai/resources/responses/responses';
import { clip, invalidRequest } from '../../../common/api-error';
import type { ChatContentPart, ChatMessage } from '../../../engine/types';
import { pastSearchResult } from '../../hosted';
import { fileText } from '../../inputs/input-files';
import { asFunctionHistory } from './tools/client-tools/client-history';
import { pastPythonTurn } from './tools/code-interpreter-tool';
import { asFunctionItem } from './tools/custom-tool-items';
import { FILE_SEARCH_NAME } from './tools/hosted-tools';
import { answeredApprovals } from './tools/mcp-approvals';
import { McpHistory } from './tools/mcp-history';

export interface ChatTranslationOptions {
  /** Whether the model takes images; when false an image part is a 400 naming the part. */
  vision: boolean;
  /** Named in errors. */
  modelId?: string;
  /** Index of this request's first input item in `items` (the rest is history); errors count from it. */
  firstInput?: number;
}

/**
 * Turns instructions and Responses items (history first, then this request's input) into the chat
 * messages engines take. Consecutive function calls become one assistant message with several
 * `tool_calls`, as chat templates expect. A reasoning item's text rides on the assistant turn that
 * follows it as `reasoning`: engines show it again only where the model's template does.
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
  // Calls still waiting for their output, oldest first: an output without `call_id` takes one.
  const pending: { id: string; name: string }[] = [];
  const first = opts.firstInput ?? 0;
  // The last reasoning item's text, until the assistant turn it belongs to.
  let reasoning: string | null = null;
  const mcp = new McpHistory(answeredApprovals(items));
  const withReasoning = <T extends object>(m: T): T => {
    const r = reasoning;
    reasoning = null;
    return r ? { ...m, reasoning: r } : m;
  };
  items.forEach((raw, index) => {
    // Custom and client tools' calls and outputs (issue 45) as the function calls and results the model met.
    const item = asFunctionHistory(raw) ?? asFunctionItem(raw);
    // History items were accepted before; a problem there names the item, not an input index.
    const at = index >= first ? `input[${index - first}]` : `history[${index}]`;
    switch (item.type) {
      case 'message': {
        if (item.role === 'assistant') {
          const text = item.content.map((p) => (p.type === 'output_text' ? p.text : p.refusal)).join('');
          out.push(withReasoning({ role: 'assistant' as const, content: text }));
          return;
        }
        reasoning = null;
        if (item.role === 'user') {
          out.push({ role: 'user', content: userContent(item.content, `${at}.content`, opts) });
        } else {
          // Chat templates know one system role; `developer` is OpenAI's newer name for it.
          out.push({ role: 'system', content: textOf(item.content, `${at}.content`) });
        }
        return;
      }
      case 'function_call': {
        toolNames.set(item.call_id, item.name);
        pending.push({ id: item.call_id, name: item.name });
        const call = {
          id: item.call_id,
          type: 'function' as const,
          function: { name: item.name, arguments: item.arguments },
        };
        const prev = out.at(-1);
        if (prev?.role === 'assistant' && prev.tool_calls && !prev.content) prev.tool_calls.push(call);
        else out.push(withReasoning({ role: 'assistant' as const, content: null, tool_calls: [call] }));
        return;
      }
      case 'file_search_call': {
        // The call and what it found, as the model met them: its call, then the tool's result.
        const call = {
          id: item.id,
          type: 'function' as const,
          function: { name: FILE_SEARCH_NAME, arguments: JSON.stringify({ queries: item.queries }) },
        };
        out.push(withReasoning({ role: 'assistant' as const, content: null, tool_calls: [call] }));
        out.push({
          role: 'tool',
          tool_call_id: item.id,
          name: FILE_SEARCH_NAME,
          content: pastSearchResult(item),
        });
        return;
      }
      case 'code_interpreter_call':
        out.push(...pastPythonTurn(item, withReasoning));
        return;
      case 'reasoning': {
        const text = (item.content ?? []).map((p) => p.text).join('');
        reasoning = text === '' ? null : text;
        return;
      }
      case 'function_call_output': {
        reasoning = null;
        const callId = item.call_id ?? pairByName(pending, item.name, at);
        const waiting = pending.findIndex((p) => p.id === callId);
        if (waiting >= 0) pending.splice(waiting, 1);
        const content = typeof item.output === 'string' ? item.output : textOf(item.output, `${at}.output`);
        out.push({
          role: 'tool',
          tool_call_id: callId,
          name: toolNames.get(callId) ?? item.name ?? 'unknown',
          content,
        });
        return;
      }
      case 'mcp_list_tools':
      case 'mcp_call':
      case 'mcp_approval_request':
      case 'mcp_approval_response':
        for (const m of mcp.messages(item)) out.push(m.role === 'assistant' ? withReasoning(m) : m);
        return;
      default:
        return;
    }
  });
  return out;
}

/**
 * The call an output without `call_id` answers: the oldest pending call of its `name` (or the
 * oldest pending call when it names none). Chat templates pair a tool result with its call by id.
 */
function pairByName(pending: { id: string; name: string }[], name: string | undefined, at: string): string {
  const call = pending.find((p) => name === undefined || p.name === name);
  if (call) return call.id;
  throw invalidRequest(
    `${at}.call_id`,
    `No function call ${name === undefined ? '' : `to '${clip(name)}' `}is waiting for this output: send the call_id of its function_call.`,
    'missing_required_parameter',
  );
}

type Part = { type: string; text?: string; image_url?: string | null; file_data?: string; filename?: string };

function userContent(
  parts: readonly Part[],
  path: string,
  opts: ChatTranslationOptions,
): string | ChatContentPart[] {
  if (parts.every((p) => p.type === 'input_text')) return parts.map((p) => p.text ?? '').join('\n');
  return parts.map((p, j): ChatContentPart => {
    if (p.type === 'input_image') {
      if (!opts.vision) {
        throw invalidRequest(
          `${path}[${j}]`,
          `Image input is not supported by the model '${opts.modelId ?? 'requested'}': it reads text only. Remove the input_image part or pick a vision model.`,
          'unsupported_value',
        );
      }
      if (!p.image_url)
        throw invalidRequest(
          `${path}[${j}].image_url`,
          'An image_url is required: file ids are not available offline.',
          'missing_required_parameter',
        );
      return { type: 'image_url', image_url: { url: p.image_url } };
    }
    return { type: 'text', text: partText(p, `${path}[${j}]`) };
  });
}

function textOf(parts: readonly Part[], path: string): string {
  return parts.map((p, j) => partText(p, `${path}[${j}]`)).join('\n');
}

/** Text of a text or file part; binary files cannot be read by a text model. */
function partText(p: Part, param: string): string {
  if (p.type === 'input_text') return p.text ?? '';
  if (p.type === 'input_file') return fileText(p, param);
  throw invalidRequest(
    `${param}.type`,
    `Content of type '${p.type}' is not supported here.`,
    'invalid_value',
  );
}
