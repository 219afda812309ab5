/**
 * Chat history, rewritten into the shapes web-llm accepts for every model's conversation template,
 * with tool calls and results in the model family's native format.
 */
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from '@mlc-ai/web-llm';
import { invalidRequest } from '../../common/api-error';
import type { ModelFamily } from '../tool-formats/model-family';
import { historyCalls } from '../tool-formats/shared';
import type { HistoryResult } from '../tool-formats/types';
import type { ChatContentPart, ChatMessage } from '../types';
import { userTurnOpener } from './webllm-conv-templates';

interface UserTurn {
  text: string[];
  images: string[];
}

/** A piece of an assistant turn: its text, or its calls in the family's format. */
interface AssistantPart {
  text: string;
  calls: boolean;
}

export interface MessageOptions {
  family: ModelFamily;
  /** Extra system sections (format instructions), appended after the caller's system text. */
  system: string[];
  /** The family's tool section, when tools are offered. */
  toolSection: string | null;
  vision: boolean;
  modelId: string;
  /** Token counting renders any history; only a generation needs the user or a tool to speak last. */
  anyLastTurn?: boolean;
  /** Today, for templates that date the system block (Llama 3.1); the clock's when absent. */
  now?: Date;
}

/**
 * Converts the core's chat messages to web-llm's, working around what web-llm rejects:
 * - one system message, first (`SystemMessageOrderError` otherwise), extra sections appended to it;
 * - no `tool_calls` field outside Hermes (web-llm's own tool path), so calls become assistant text
 *   in the family's native format, and results a `tool` turn only where the family's conversation
 *   template has that role (web-llm throws "Role is not supported" otherwise), else a user turn;
 * - assistant content must be a string, never null (`ContentTypeError`);
 * - a user turn holds at most one text part (`MultipleTextContentError`) and images only on vision
 *   models (`UserMessageContentErrorForNonVLM`);
 * - turns of the same role are merged, since templates index separators by turn parity
 *   (DeepSeek-R1) or require alternation (Gemma, Mistral);
 * - the last turn must be the user's or a tool's (`MessageOrderError`): a 400 naming `input` here.
 *
 * @example
 * toWebLLMMessages([{ role: 'user', content: 'Hi' }], { family, system: [], toolSection: null, vision: false, modelId: 'm' });
 * // [{ role: 'user', content: 'Hi' }]
 */
export function toWebLLMMessages(
  messages: ChatMessage[],
  opts: MessageOptions,
): ChatCompletionMessageParam[] {
  const format = opts.family.tools;
  let callerSystem = messages.flatMap((m) => (m.role === 'system' ? [m.content] : []));
  if (callerSystem.length === 0 && opts.family.defaultSystem) callerSystem = [opts.family.defaultSystem];
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  let system = [...callerSystem, ...opts.system].filter(Boolean).join('\n\n');
  if (opts.family.systemText) system = opts.family.systemText(system);
  const inTurns = format.placement === 'last-user' || format.placement === 'after-system';
  if (opts.toolSection && !inTurns) {
    const parts = format.placement === 'system' ? [system, opts.toolSection] : [opts.toolSection, system];
    const keep = opts.family.toolsAfterEmptySystem && format.placement === 'system';
    system = (keep ? parts : parts.filter(Boolean)).join(format.separator ?? '\n\n');
  }
  if (opts.family.systemHead)
    system = opts.family.systemHead(opts.toolSection !== null, opts.now ?? new Date()) + system;
  const out: ChatCompletionMessageParam[] = [];
  if (system !== '' && !opts.family.systemInLastUser) out.push({ role: 'system', content: system });

  let user: UserTurn | null = null;
  let assistant: AssistantPart[] | null = null;
  let results: HistoryResult[] | null = null;
  let thinkBlock = '';
  let afterLastUser = false;
  const flush = () => {
    if (user) out.push({ role: 'user', content: userContent(user) });
    if (assistant) {
      const head = thinkBlock || (afterLastUser ? (opts.family.assistantPrefix ?? '') : '');
      out.push({ role: 'assistant', content: head + joinAssistant(assistant, opts.family) });
    }
    thinkBlock = '';
    if (results && opts.family.resultRole === 'tool') {
      // One tool turn per result, as Llama's `ipython` and Ministral's `[TOOL_RESULTS]` turns are,
      // unless the template groups them (Hermes).
      const turns = opts.family.groupResults ? [results] : results.map((r) => [r]);
      for (const group of turns)
        out.push({
          role: 'tool',
          content: format.renderResults(group),
          tool_call_id: group[0]?.callId ?? '',
        });
    } else if (results) out.push({ role: 'user', content: format.renderResults(results) });
    user = null;
    assistant = null;
    results = null;
  };
  for (const [i, m] of messages.entries()) {
    if (m.role === 'system') continue;
    afterLastUser = i > lastUser;
    if (m.role === 'assistant') {
      if (!assistant) flush();
      assistant ??= [];
      // The think block as the model wrote it, so the history equals what web-llm decoded and keeps
      // in its KV cache (it reuses the cache only for an identical conversation).
      const markers = opts.family.reasoning;
      if (m.reasoning && markers && opts.family.reasoningInLoop && i > lastUser && assistant.length === 0)
        thinkBlock = `${markers.open}\n${opts.family.loopReasoningText?.(m.reasoning) ?? m.reasoning.trim()}\n${markers.close}\n\n`;
      else if (m.reasoning && markers && opts.family.reasoningInHistory && assistant.length === 0)
        thinkBlock = `${markers.open}${m.reasoning}${markers.close}`;
      const text = m.content ? (opts.family.assistantText?.(m.content) ?? m.content) : '';
      if (text !== '') assistant.push({ text, calls: false });
      if (m.tool_calls?.length) {
        assistant.push({ text: format.renderCalls(historyCalls(m.tool_calls)), calls: true });
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
    user ??= { text: [], images: [] };
    addUserContent(user, m.content, opts);
    if (opts.family.trimText) user.text = user.text.map((t) => t.trim());
  }
  flush();
  const last = out[out.length - 1];
  if (!opts.anyLastTurn && (!last || (last.role !== 'user' && last.role !== 'tool'))) {
    throw invalidRequest(
      'input',
      'The input must end with a user message or a function_call_output: local models continue a conversation only from there.',
    );
  }
  if (opts.family.systemInLastUser && system !== '') editLastUser(out, (text) => `${system}\n\n${text}`);
  const opener = userTurnOpener(opts.modelId);
  if (opener) for (const m of out) if (m.role === 'user') editText(m, (text) => opener + text);
  if (opts.toolSection && format.placement === 'last-user')
    editLastUser(out, (text) => `${opts.toolSection}${text}`);
  // Ahead of the first message: the first user turn's opener is intab's to write (conv_config).
  const first = out.find((m) => m.role === 'user');
  if (opts.toolSection && format.placement === 'after-system' && first)
    editText(first, (text) => `${opts.toolSection}${text}`);
  return out;
}

/**
 * An assistant turn's pieces joined as the family's template joins them: a newline between pieces,
 * the family's own separator between text and the calls after it (Qwen3.5's blank line), and no
 * text at all in a turn that calls where the template writes only the calls.
 */
function joinAssistant(all: AssistantPart[], family: ModelFamily): string {
  // A turn's text goes where the template drops it from a turn that calls (Mistral v3, Hermes, Llama 3.1).
  const parts = family.callsOnly && all.some((p) => p.calls) ? all.filter((p) => p.calls) : all;
  return parts
    .map((p, i) => {
      if (i === 0) return p.text;
      const afterText = p.calls && !parts[i - 1]?.calls;
      return (afterText ? (family.textBeforeCalls ?? '\n') : '\n') + p.text;
    })
    .join('');
}

/**
 * Rewrites the last user message's text: Mistral's v3 template puts `[AVAILABLE_TOOLS]` right
 * before it and the system text at its head.
 */
function editLastUser(out: ChatCompletionMessageParam[], edit: (text: string) => string): void {
  const last = out.findLast((m) => m.role === 'user');
  if (last) editText(last, edit);
}

function editText(m: ChatCompletionMessageParam, edit: (text: string) => string): void {
  if (m.role !== 'user') return;
  if (typeof m.content === 'string') m.content = edit(m.content);
  else {
    const text = m.content.find((p) => p.type === 'text');
    if (text && text.type === 'text') text.text = edit(text.text);
  }
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
