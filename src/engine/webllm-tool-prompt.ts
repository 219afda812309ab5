/**
 * Tool calling by prompt. web-llm's native `tools` only work for Hermes models, so every model is
 * told the tools in its system prompt and answers with one JSON shape, `{"tool_calls":[...]}`,
 * which `required`/named choices also enforce through a JSON-Schema grammar.
 */
import type { FunctionToolSpec, ToolChoiceSpec } from './types';

/** A parsed call: `arguments` is a JSON string, as the wire wants it. */
export interface ParsedToolCall {
  name: string;
  arguments: string;
}

/**
 * The tools the model may call for this choice; empty when it may call none.
 *
 * @example
 * allowedTools(tools, { name: 'get_weather' }).map((t) => t.name); // ['get_weather']
 */
export function allowedTools(tools: FunctionToolSpec[], choice: ToolChoiceSpec): FunctionToolSpec[] {
  if (choice === 'none') return [];
  if (typeof choice === 'object') return tools.filter((t) => t.name === choice.name);
  return tools;
}

/**
 * The system-prompt section that describes the tools and the reply format.
 *
 * @example
 * buildToolPrompt([{ name: 'get_weather', parameters: { type: 'object' }, strict: null }], 'auto', true);
 */
export function buildToolPrompt(
  tools: FunctionToolSpec[],
  choice: ToolChoiceSpec,
  parallel: boolean,
): string {
  const specs = tools.map((t) => ({
    name: t.name,
    ...(t.description ? { description: t.description } : {}),
    parameters: t.parameters ?? { type: 'object', properties: {} },
  }));
  const lines = [
    '# Tools',
    'You can call these functions. Each has a name, a description and a JSON Schema for its arguments:',
    JSON.stringify(specs),
    '',
    'To call functions, reply with only this JSON object and nothing before or after it:',
    '{"tool_calls":[{"name":"<function name>","arguments":{<arguments matching its schema>}}]}',
  ];
  lines.push(parallel ? 'You may list several calls.' : 'List exactly one call.');
  if (typeof choice === 'object') lines.push(`You must call the function "${choice.name}" now.`);
  else if (choice === 'required') lines.push('You must call at least one function now.');
  else lines.push('If no function is needed, reply to the user in plain text instead.');
  lines.push(
    'Function results come back in messages that start with "Tool result"; use them to answer the user.',
  );
  return lines.join('\n');
}

/**
 * The JSON Schema of a reply that must call a tool (`required` or a named choice), for web-llm's
 * `response_format: {type:'json_object', schema}`; null when the model may also answer in text.
 *
 * @example
 * toolCallSchema(tools, { name: 'get_weather' }, true); // {type:'object', properties:{tool_calls:{...}}}
 */
export function toolCallSchema(
  tools: FunctionToolSpec[],
  choice: ToolChoiceSpec,
  parallel: boolean,
): Record<string, unknown> | null {
  if (choice === 'none' || choice === 'auto') return null;
  const allowed = allowedTools(tools, choice);
  if (allowed.length === 0) return null;
  const calls = allowed.map((t) => ({
    type: 'object',
    properties: {
      name: { type: 'string', const: t.name },
      arguments: t.parameters ?? { type: 'object' },
    },
    required: ['name', 'arguments'],
    additionalProperties: false,
  }));
  const items = calls.length === 1 ? calls[0] : { anyOf: calls };
  return {
    type: 'object',
    properties: {
      tool_calls: { type: 'array', items, minItems: 1, ...(parallel ? {} : { maxItems: 1 }) },
    },
    required: ['tool_calls'],
    additionalProperties: false,
  };
}

/**
 * Parses a reply as tool calls; null when it is not a well-formed call of known tools (then it is
 * text). Accepts the prompted `{"tool_calls":[...]}`, a bare call or array of calls, and a
 * ```json fence around either, because small models drift toward those.
 *
 * @example
 * parseToolCalls('{"tool_calls":[{"name":"f","arguments":{"a":1}}]}', ['f']); // [{name:'f', arguments:'{"a":1}'}]
 */
export function parseToolCalls(text: string, known: readonly string[]): ParsedToolCall[] | null {
  const body = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  const list = Array.isArray(value)
    ? value
    : isRecord(value) && 'tool_calls' in value
      ? value.tool_calls
      : [value];
  if (!Array.isArray(list) || list.length === 0) return null;
  const calls: ParsedToolCall[] = [];
  for (const item of list) {
    const call = isRecord(item) && isRecord(item.function) ? item.function : item;
    if (!isRecord(call) || typeof call.name !== 'string' || !known.includes(call.name)) return null;
    const args = call.arguments ?? call.parameters ?? {};
    calls.push({ name: call.name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
  }
  return calls;
}

/** The longest opening a tool-call reply can have before its JSON starts. */
const CALL_OPENING = /^\s*(?:```(?:json)?\s*)?[[{]/i;
const CALL_OPENING_PREFIXES = ['```json', '```'];

/**
 * Decides, from the first characters of a reply, whether it may be a tool call ('call': buffer it
 * whole), is plain text ('text': stream it), or cannot be told yet ('undecided').
 *
 * @example
 * classifyReplyStart('  {"tool'); // 'call'
 * classifyReplyStart('Hello'); // 'text'
 * classifyReplyStart('``'); // 'undecided'
 */
export function classifyReplyStart(prefix: string): 'call' | 'text' | 'undecided' {
  if (CALL_OPENING.test(prefix)) return 'call';
  const rest = prefix.trimStart().toLowerCase();
  if (rest === '') return 'undecided';
  for (const opening of CALL_OPENING_PREFIXES) {
    if (opening.startsWith(rest)) return 'undecided';
    if (rest.startsWith(opening) && rest.slice(opening.length).trim() === '') return 'undecided';
  }
  return 'text';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
