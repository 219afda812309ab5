/**
 * Chat history as the messages llama.cpp renders with the GGUF's own chat template (Jinja). llama.cpp's
 * own tool handling cannot be combined with a grammar, so intab never hands it `tools` as a request
 * field. Families whose template writes calls itself get them as the template expects them (the
 * message's `tool_calls`); the others get calls and results in the family's native format as text.
 */
import { invalidRequest } from '../../common/api-error';
import { parsedArguments, pyJson, tryJson } from '../tool-formats/json-text';
import { mistralCallId } from '../tool-formats/mistral';
import type { ModelFamily } from '../tool-formats/model-family';
import { historyCalls } from '../tool-formats/shared';
import type { HistoryResult } from '../tool-formats/types';
import type { ChatContentPart, ChatMessage, ChatToolCall } from '../types';

/**
 * A message as wllama's `createChatCompletion` takes it: text only, plus an assistant turn's
 * reasoning, which llama.cpp hands the template as the message's `reasoning_content`.
 */
export type TemplateMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; reasoning_content?: string; tool_calls?: TemplateCall[] }
  | { role: 'tool'; content: string; tool_call_id: string };

/** A call as llama.cpp reads it from a message (OpenAI's shape, the arguments as JSON text). */
export interface TemplateCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface TemplateOptions {
  family: ModelFamily;
  /** Extra system sections (the JSON instruction), after the caller's system text. */
  system: string[];
  /** The family's tool section when tools are offered, else null. */
  toolSection: string | null;
  modelId: string;
  /** Token counting renders any history; a generation needs the user or a tool to speak last. */
  anyLastTurn?: boolean;
  /**
   * The template writes an assistant turn's calls (and drops or keeps its prose) itself, from the
   * message's `tool_calls`: Hermes' tool_use, Meta's Llama 3.1/3.2, mistralai's v3 and Ministral 3.
   */
  templateCalls?: boolean;
}

/**
 * Converts the core's messages for a chat template:
 * - one system message, first, with the extra sections and (by the family's placement) the tools;
 *   the caller's text as the template writes it (Qwen3.5 trims it before the tools go in front), and
 *   the family's default system text where the template would write it but intab sends a system;
 * - an assistant turn's calls as `tool_calls` where the template writes them (`templateCalls`),
 *   else as text in the family's format after its content (separated as the family's template
 *   separates them); for families whose template shows the reasoning of
 *   turns in a tool loop (Qwen3, Qwen3.5), its reasoning as `reasoning_content`: the template writes
 *   it in the turn's think block after the last user message and drops it before;
 * - tool results as `tool` turns, raw, where the family's template has that role (it renders them),
 *   else one user turn in the family's format;
 * - consecutive turns of one role merged (several templates require strict alternation);
 * - images refused: no vision projector is loaded with the model.
 *
 * @example
 * toTemplateMessages([{ role: 'user', content: 'Hi' }], { family, system: [], toolSection: null, modelId: 'm' });
 * // [{ role: 'user', content: 'Hi' }]
 */
export function toTemplateMessages(messages: ChatMessage[], opts: TemplateOptions): TemplateMessage[] {
  const family = opts.family;
  const format = family.tools;
  let callerSystem = messages.flatMap((m) => (m.role === 'system' ? [m.content] : []));
  // The template writes its default only when no system message comes: with intab's sections in
  // one, the default goes in front of them as the template would have written it.
  const extra = opts.system.length > 0 || (opts.toolSection !== null && format.placement !== 'last-user');
  if (callerSystem.length === 0 && family.defaultSystem && extra) callerSystem = [family.defaultSystem];
  let system = [...callerSystem, ...opts.system].filter(Boolean).join('\n\n');
  if (family.systemText && system !== '') system = family.systemText(system);
  if (opts.toolSection && format.placement !== 'last-user') {
    const parts = format.placement === 'system' ? [system, opts.toolSection] : [opts.toolSection, system];
    system = parts.filter(Boolean).join(format.separator ?? '\n\n');
  }
  const out: TemplateMessage[] = [];
  if (system !== '') out.push({ role: 'system', content: system });

  let user: string[] | null = null;
  let assistant: string[] | null = null;
  let reasoning: string | null = null;
  /** The turn's think block as the model wrote it, where the template keeps it in the content. */
  let thinkBlock = '';
  let calls: ChatToolCall[] | null = null;
  let results: HistoryResult[] | null = null;
  const flush = () => {
    if (user) out.push({ role: 'user', content: user.join('\n\n') });
    if (assistant && calls && calls.length > 1 && format.id === 'llama3-json') {
      // Meta's template raises on more than one call in a turn: they go as the model writes them,
      // joined by "; ", and the template writes that text as the turn (its prose dropped, as the
      // template drops it from a calling turn).
      out.push({ role: 'assistant', content: format.renderCalls(historyCalls(calls)) });
    } else if (assistant && calls) {
      const content = thinkBlock + assistant.join('\n');
      out.push({ role: 'assistant', content, tool_calls: calls.map(templateCall) });
    } else if (assistant) {
      const content = thinkBlock + assistant.join('');
      // With its reasoning handed over, the template writes the think block itself.
      if (reasoning !== null) out.push({ role: 'assistant', content, reasoning_content: reasoning });
      else out.push({ role: 'assistant', content: (family.assistantPrefix ?? '') + content });
    }
    if (results && family.resultRole === 'tool') {
      // The GGUF's template writes the tool turn itself (Meta's `| tojson`, mistralai's
      // `[TOOL_RESULTS]`, Hermes' `<tool_response>`): it gets the result as the caller sent it, or
      // the model would read it encoded twice. mistralai's template refuses any id but nine
      // alphanumerics; the others ignore the id.
      for (const r of results) {
        out.push({ role: 'tool', content: r.content, tool_call_id: mistralCallId(r.callId) });
      }
    } else if (results) out.push({ role: 'user', content: format.renderResults(results) });
    user = null;
    assistant = null;
    reasoning = null;
    thinkBlock = '';
    calls = null;
    results = null;
  };
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'assistant') {
      if (!assistant) flush();
      if (!assistant && m.reasoning && family.reasoning && family.reasoningInLoop) reasoning = m.reasoning;
      // The block goes in the content, as the template writes a `thinking` chunk before the text
      // (llama.cpp builds those chunks from `reasoning_content` only in its own Ministral handler).
      if (!assistant && m.reasoning && family.reasoning && family.reasoningInHistory)
        thinkBlock = `${family.reasoning.open}${m.reasoning}${family.reasoning.close}`;
      assistant ??= [];
      if (opts.templateCalls) {
        // The template writes the turn: its text as given, its calls from `tool_calls` (ids as
        // mistralai's template requires them, the same as the results').
        if (m.content) assistant.push(m.content);
        if (m.tool_calls?.length) calls = [...(calls ?? []), ...m.tool_calls];
        continue;
      }
      // The template trims the whole content; a family that trims each text trims it before the calls too.
      const text = m.content ? (family.trimText ? m.content.trim() : m.content) : '';
      if (text) assistant.push(assistant.length > 0 ? `\n${text}` : text);
      if (m.tool_calls?.length) {
        const calls = format.renderCalls(historyCalls(m.tool_calls));
        assistant.push(assistant.length > 0 ? `${family.textBeforeCalls ?? '\n'}${calls}` : calls);
      }
      continue;
    }
    if (m.role === 'tool') {
      if (!results) flush();
      results ??= [];
      results.push({ name: m.name, callId: m.tool_call_id, content: m.content });
      continue;
    }
    if (!user) flush();
    user ??= [];
    user.push(userText(m.content, opts.modelId));
  }
  flush();
  const last = out[out.length - 1];
  if (!opts.anyLastTurn && (!last || (last.role !== 'user' && last.role !== 'tool'))) {
    throw invalidRequest(
      'input',
      'The input must end with a user message or a function_call_output: local models continue a conversation only from there.',
    );
  }
  if (opts.toolSection && format.placement === 'last-user') {
    const lastUser = out.findLast((m) => m.role === 'user');
    if (lastUser) lastUser.content = `${opts.toolSection}${lastUser.content}`;
  }
  return NO_SYSTEM_ROLE.has(family.id) ? foldSystem(out) : out;
}

/**
 * Families whose published template raises on a system turn (Gemma 2's "System role not
 * supported"). llama.cpp would merge it into the next message with one newline (or drop it when
 * nothing follows); intab writes it at the head of the first user turn with a blank line, as
 * web-llm's Gemma 2 template does.
 */
const NO_SYSTEM_ROLE = new Set(['gemma2']);

function foldSystem(out: TemplateMessage[]): TemplateMessage[] {
  const [first, ...rest] = out;
  if (first?.role !== 'system') return out;
  const user = rest.find((m) => m.role === 'user');
  if (user) user.content = `${first.content}\n\n${user.content}`;
  return rest;
}

/**
 * A call for the template. llama.cpp hands the template the arguments as an object where the
 * template takes one (its capability check), so Meta's and mistralai's `| tojson` write them as the
 * published rendering does; templates that also take text (Hermes, Ministral 3) may get the text,
 * so it is written as `tojson` would (`{"city": "Paris"}`). Arguments that are not JSON go as a JSON
 * string, which llama.cpp can parse (it fails the request on anything else).
 */
function templateCall(call: ChatToolCall): TemplateCall {
  const text = call.function.arguments;
  // Numbers as the client wrote them (a JavaScript number would be `1e20` written back as
  // `100000000000000000000`, an integer to llama.cpp): llama.cpp reads the client's value, and
  // spells it as it spells the client's own text.
  const parsed = tryJson(text) === undefined ? undefined : parsedArguments(text);
  const args = parsed === undefined ? JSON.stringify(text) : pyJson(parsed, 'as written');
  return {
    id: mistralCallId(call.id),
    type: 'function',
    function: { name: call.function.name, arguments: args },
  };
}

function userText(content: string | ChatContentPart[], modelId: string): string {
  if (typeof content === 'string') return content;
  if (content.some((p) => p.type === 'image_url')) {
    throw invalidRequest(
      'input',
      `The model '${modelId}' does not accept image input (no vision projector is loaded with it).`,
      'unsupported_value',
    );
  }
  return content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}
