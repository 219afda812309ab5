/**
 * Ministral 3's (and Mistral's v13 tokenizer's) `[TOOL_CALLS]name[ARGS]{…}`: one marker per call,
 * tools listed in `[AVAILABLE_TOOLS][…][/AVAILABLE_TOOLS]` between the system block and the first
 * message (outside `[SYSTEM_PROMPT]`, as the published template writes them), results in `[TOOL_RESULTS]…[/TOOL_RESULTS]`
 * (web-llm's `ministral3` conversation template wraps tool-role messages in those itself).
 */
import type { FunctionToolSpec } from '../types';
import { argumentsText, jsonEnd, parsedArguments, pyJson } from './json-text';
import { JsonArguments } from './partial-call';
import { grammarArguments, openAiTool } from './shared';
import type { HistoryCall, HistoryResult, TagSpec, ToolFormat } from './types';

const TOOL_CALLS = '[TOOL_CALLS]';
const ARGS = '[ARGS]';

/**
 * @example
 * ministralFormat.renderCalls([{ name: 'f', arguments: '{"a":1}', callId: 'c1' }]); // '[TOOL_CALLS]f[ARGS]{"a": 1}'
 */
export const ministralFormat: ToolFormat = {
  id: 'ministral',
  placement: 'after-system',
  toolSection(tools: FunctionToolSpec[]): string {
    return `[AVAILABLE_TOOLS]${pyJson(tools.map(openAiTool))}[/AVAILABLE_TOOLS]`;
  },
  renderCalls(calls: HistoryCall[]): string {
    return calls.map((c) => `${TOOL_CALLS}${c.name}${ARGS}${pyJson(parsedArguments(c.arguments))}`).join('');
  },
  renderResults(results: HistoryResult[]): string {
    return results.map((r) => r.content).join('\n');
  },
  // The template writes each call as `[TOOL_CALLS]name[ARGS]{…}`, back to back.
  callSeparator: '',
  triggers: [TOOL_CALLS],
  tags(tools: FunctionToolSpec[]): TagSpec[] {
    return tools.map((t) => ({
      type: 'tag',
      begin: `${TOOL_CALLS}${t.name}${ARGS}`,
      content: { type: 'json_schema', json_schema: grammarArguments(t) },
      end: '',
    }));
  },
  regionEnd(text: string): number {
    const args = text.indexOf(ARGS);
    return args < 0 ? -1 : jsonEnd(text, args + ARGS.length);
  },
  argumentsStart(region) {
    const args = region.indexOf(ARGS);
    if (!region.startsWith(TOOL_CALLS) || args < 0) return null;
    return {
      name: region.slice(TOOL_CALLS.length, args).trim(),
      arguments: new JsonArguments(args + ARGS.length),
    };
  },
  parseRegion(region, known) {
    const args = region.indexOf(ARGS);
    if (!region.startsWith(TOOL_CALLS) || args < 0) return null;
    const name = region.slice(TOOL_CALLS.length, args).trim();
    const json = argumentsText(region.slice(args + ARGS.length).trim());
    if (!known.includes(name) || json === null) return null;
    return [{ name, arguments: json }];
  },
};
