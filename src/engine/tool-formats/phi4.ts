/**
 * Phi-4-mini's tool calls. No Microsoft template publishes an output format, so calls follow what
 * vLLM's `phi4_mini_json` parser and SGLang's `Phi4MiniDetector` read: `functools[{"name": …,
 * "arguments": {…}}, …]`, one JSON list after the word (SGLang constrains each call as
 * `functools[{"name": "<tool>", "arguments": ` … `}]`, as the grammar here does). The
 * `<|tool_call|>[…]<|/tool_call|>` form its vocabulary has tokens for (Microsoft's ONNX cookbook
 * grammar opens calls with `<|tool_call|>`, no closing marker) is held by the grammar and read too,
 * never written in history. Tools go as a JSON list in `<|tool|>…<|/tool|>` right after the system
 * text, as Microsoft's model card shows.
 */
import type { FunctionToolSpec } from '../types';
import { jsonEnd, parsedArguments, pyJson } from './json-text';
import { jsonArgumentsStart } from './partial-call';
import { functionDefinition, grammarArguments, parseCallObjects } from './shared';
import type { HistoryCall, HistoryResult, TagSpec, ToolFormat } from './types';

const FUNCTOOLS = 'functools';
const OPEN = '<|tool_call|>';
const CLOSE = '<|/tool_call|>';

/**
 * @example
 * phi4Format.renderCalls([{ name: 'f', arguments: '{}', callId: 'c1' }]); // 'functools[{"name": "f", "arguments": {}}]'
 * // several calls: one list each, one per line
 */
export const phi4Format: ToolFormat = {
  id: 'phi4-mini',
  placement: 'system',
  separator: '',
  toolSection(tools: FunctionToolSpec[]): string {
    return `<|tool|>${pyJson(tools.map(functionDefinition))}<|/tool|>`;
  },
  renderCalls(calls: HistoryCall[]): string {
    // One list per call, as the grammar writes them (see `tags`), so history shows what is allowed.
    return calls
      .map((c) => `${FUNCTOOLS}[${pyJson({ name: c.name, arguments: parsedArguments(c.arguments) })}]`)
      .join('\n');
  },
  renderResults(results: HistoryResult[]): string {
    return results.map((r) => `<|tool_response|>${r.content}`).join('\n');
  },
  callSeparator: '\n',
  triggers: [`${FUNCTOOLS}[`, OPEN],
  tags(tools: FunctionToolSpec[]): TagSpec[] {
    // One call per list, as SGLang constrains them: a list of several would need a grammar for the
    // items without their brackets, which neither engine's JSON Schema compiler writes. Parallel
    // calls are lists in turn (a list of several is still read). The `<|tool_call|>` form is held
    // too, so a model that reaches for its vocabulary's own markers still gets a checked call.
    return tools.flatMap((t): TagSpec[] => {
      const call = `[{"name": ${JSON.stringify(t.name)}, "arguments": `;
      const content = { type: 'json_schema', json_schema: grammarArguments(t) };
      return [
        { type: 'tag', begin: `${FUNCTOOLS}${call}`, content, end: '}]' },
        { type: 'tag', begin: `${OPEN}${call}`, content, end: `}]${CLOSE}` },
      ];
    });
  },
  regionEnd(text: string): number {
    if (!text.startsWith(OPEN)) return jsonEnd(text, FUNCTOOLS.length);
    const end = jsonEnd(text, OPEN.length);
    if (end < 0) return -1;
    // The closing marker is optional: wait while what follows could still be it.
    const rest = text.slice(end);
    const closed = /^\s*<\|\/tool_call\|>/.exec(rest);
    if (closed) return end + closed[0].length;
    return CLOSE.startsWith(rest.trimStart()) ? -1 : end;
  },
  argumentsStart(region) {
    if (region.startsWith(`${FUNCTOOLS}[`)) return jsonArgumentsStart(region, FUNCTOOLS.length);
    return region.startsWith(OPEN) ? jsonArgumentsStart(region, OPEN.length) : null;
  },
  parseRegion(region, known) {
    if (region.startsWith(`${FUNCTOOLS}[`))
      return parseCallObjects(region.slice(FUNCTOOLS.length), known, 'arguments');
    if (!region.startsWith(OPEN)) return null;
    const body = region.slice(OPEN.length).trimEnd();
    return parseCallObjects(body.endsWith(CLOSE) ? body.slice(0, -CLOSE.length) : body, known, 'arguments');
  },
};
