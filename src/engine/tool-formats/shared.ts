/**
 * Pieces several formats share: the OpenAI-style tool definition the templates serialize, the
 * schema of a tool's arguments, and parsing `{"name", "arguments"}` objects.
 */
import { heldSchema } from '../held-schema';
import type { ChatToolCall, FunctionToolSpec } from '../types';
import { argumentsText, isRecord, jsonEnd, tryJson } from './json-text';
import { jsonArgumentsStart } from './partial-call';
import type { HistoryCall, ParsedToolCall, ToolFormat } from './types';

/** A tool's argument schema; tools without one take an object with no fixed properties. */
export function argumentSchema(tool: FunctionToolSpec): Record<string, unknown> {
  return tool.parameters ?? { type: 'object', properties: {} };
}

/**
 * The schema a grammar holds a call's arguments to: {@link argumentSchema} with the tool's `strict`
 * written in (a non-strict tool's objects admit undeclared members), as both engines read it.
 *
 * @example
 * grammarArguments({ name: 'f', parameters: { type: 'object', properties: {} }, strict: false });
 * // { type: 'object', properties: {}, additionalProperties: true }
 */
export function grammarArguments(tool: FunctionToolSpec): Record<string, unknown> {
  return heldSchema(argumentSchema(tool), tool.strict);
}

/**
 * A tool as chat templates receive it (`{"type": "function", "function": {...}}`), keys in the
 * order OpenAI clients send them.
 *
 * @example
 * openAiTool({ name: 'f', parameters: null, strict: null }); // {type:'function', function:{name:'f', parameters:{…}}}
 */
export function openAiTool(tool: FunctionToolSpec): Record<string, unknown> {
  return { type: 'function', function: functionDefinition(tool) };
}

/** `{name, description?, parameters}` of one tool. */
export function functionDefinition(tool: FunctionToolSpec): Record<string, unknown> {
  return {
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    parameters: argumentSchema(tool),
  };
}

/**
 * Parses JSON text holding one call object or an array of them; `argsKey` names the arguments
 * (`arguments`, or `parameters` for Llama). Null unless every call names a known tool with object
 * arguments.
 *
 * @example
 * parseCallObjects('[{"name": "f", "arguments": {}}]', ['f'], 'arguments'); // [{name:'f', arguments:'{}'}]
 */
export function parseCallObjects(
  text: string,
  known: readonly string[],
  argsKey: 'arguments' | 'parameters',
): ParsedToolCall[] | null {
  const value = tryJson(text.trim());
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) return null;
  const calls: ParsedToolCall[] = [];
  for (const item of list) {
    if (!isRecord(item) || typeof item.name !== 'string' || !known.includes(item.name)) return null;
    const args = argumentsText(item[argsKey] ?? item.arguments ?? item.parameters ?? {});
    if (args === null) return null;
    calls.push({ name: item.name, arguments: args });
  }
  return calls;
}

/**
 * The JSON Schema of a list of calls, `[{"name": …, "arguments": {…}}, …]`, each naming one of
 * `tools` with matching arguments: for formats that write all calls as one JSON list.
 *
 * @example
 * callListSchema(tools, false); // {type:'array', items:{anyOf:[…]}, minItems:1, maxItems:1}
 */
export function callListSchema(tools: FunctionToolSpec[], parallel: boolean): Record<string, unknown> {
  const calls = tools.map((t) => ({
    type: 'object',
    properties: { name: { const: t.name }, arguments: grammarArguments(t) },
    required: ['name', 'arguments'],
    additionalProperties: false,
  }));
  return {
    type: 'array',
    items: calls.length === 1 ? calls[0] : { anyOf: calls },
    minItems: 1,
    ...(parallel ? {} : { maxItems: 1 }),
  };
}

/**
 * `regionEnd` and `parseRegion` for calls wrapped in `open … close` around JSON (one call object or a
 * list of them), as `<tool_call>` and `<|tool_call|>` formats write them.
 *
 * @example
 * const { regionEnd, parseRegion } = wrappedJsonCalls('<tool_call>', '</tool_call>');
 */
export function wrappedJsonCalls(
  open: string,
  close: string,
): Pick<ToolFormat, 'regionEnd' | 'parseRegion' | 'argumentsStart'> {
  return {
    regionEnd: (text) => wrappedJsonEnd(text, open.length, close),
    argumentsStart: (region) => (region.startsWith(open) ? jsonArgumentsStart(region, open.length) : null),
    parseRegion(region, known) {
      if (!region.startsWith(open) || !region.endsWith(close)) return null;
      return parseCallObjects(region.slice(open.length, -close.length), known, 'arguments');
    },
  };
}

/**
 * Where a region of JSON after a `head`-character marker ends: just past the `close` that follows
 * the JSON value (whitespace between), or -1 while either is still coming. The grammar holds a call
 * to one whole value before its `close`, so a string argument holding `</tool_call>` stays inside
 * the call. Text that is no JSON value where the grammar puts one (a marker met in prose) ends at
 * the first `close`, as before.
 *
 * @example
 * wrappedJsonEnd('<tool_call>\n{"a": "</tool_call>"}\n</tool_call> and', 11, '</tool_call>'); // 46
 */
export function wrappedJsonEnd(text: string, head: number, close: string): number {
  let i = head;
  while (i < text.length && /\s/.test(text[i] as string)) i++;
  if (i === text.length) return -1;
  if (text[i] === '{' || text[i] === '[') {
    const end = jsonEnd(text, i);
    if (end < 0) return -1;
    let after = end;
    while (after < text.length && /\s/.test(text[after] as string)) after++;
    const rest = text.slice(after, after + close.length);
    if (rest === close) return after + close.length;
    if (close.startsWith(rest)) return -1;
  }
  return closingEnd(text, close);
}

/** The index just past the first `close` in `text`, or -1 while it has not come. */
export function closingEnd(text: string, close: string): number {
  const at = text.indexOf(close);
  return at < 0 ? -1 : at + close.length;
}

/**
 * An assistant turn's tool calls as a format renders them in history (both real engines write past
 * calls back in the family's own markup).
 *
 * @example
 * format.renderCalls(historyCalls(message.tool_calls));
 */
export function historyCalls(calls: readonly ChatToolCall[]): HistoryCall[] {
  return calls.map((c) => ({ name: c.function.name, arguments: c.function.arguments, callId: c.id }));
}
