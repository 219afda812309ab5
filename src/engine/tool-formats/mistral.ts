/**
 * Mistral's `[TOOL_CALLS] [{"name": …, "arguments": {…}}]` (Mistral 7B Instruct v0.3), in the words
 * of its published template: `[AVAILABLE_TOOLS] […][/AVAILABLE_TOOLS]` opens the last user turn,
 * results come back as `[TOOL_RESULTS] {"content": …}[/TOOL_RESULTS]`.
 */
import type { FunctionToolSpec } from '../types';
import { jsonEnd, parsedArguments, pyJson } from './json-text';
import { jsonArgumentsStart } from './partial-call';
import { callListSchema, openAiTool, parseCallObjects } from './shared';
import type { HistoryCall, HistoryResult, TagSpec, ToolFormat } from './types';

const TOOL_CALLS = '[TOOL_CALLS]';

/**
 * @example
 * mistralFormat.renderCalls([{ name: 'f', arguments: '{}', callId: 'c1' }]); // '[TOOL_CALLS] [{"name": "f", "arguments": {}}]'
 */
export const mistralFormat: ToolFormat = {
  id: 'mistral',
  placement: 'last-user',
  toolSection(tools: FunctionToolSpec[]): string {
    return `[AVAILABLE_TOOLS] [${tools.map((t) => pyJson(openAiTool(t))).join(', ')}][/AVAILABLE_TOOLS]`;
  },
  renderCalls(calls: HistoryCall[]): string {
    const list = calls.map((c) =>
      pyJson({ name: c.name, arguments: parsedArguments(c.arguments), id: mistralCallId(c.callId) }),
    );
    return `${TOOL_CALLS} [${list.join(', ')}]`;
  },
  renderResults(results: HistoryResult[]): string {
    return results
      .map(
        (r) =>
          `[TOOL_RESULTS] {"content": ${r.content}, "call_id": ${JSON.stringify(mistralCallId(r.callId))}}[/TOOL_RESULTS]`,
      )
      .join('');
  },
  // The template writes a turn's calls as the whole turn: a reply is calls from its start, or prose,
  // where `[TOOL_CALLS] ` is text (a model explaining its format), not a call to force or parse.
  leading: { separator: null },
  triggers: [TOOL_CALLS],
  tags(tools: FunctionToolSpec[], parallel: boolean): TagSpec[] {
    // Mistral writes all of a turn's calls as one JSON list after a single marker.
    return [
      {
        type: 'tag',
        begin: `${TOOL_CALLS} `,
        content: { type: 'json_schema', json_schema: callListSchema(tools, parallel) },
        end: '',
      },
    ];
  },
  regionEnd(text: string): number {
    return jsonEnd(text, TOOL_CALLS.length);
  },
  argumentsStart(region) {
    return region.startsWith(TOOL_CALLS) ? jsonArgumentsStart(region, TOOL_CALLS.length) : null;
  },
  parseRegion(region, known) {
    if (!region.startsWith(TOOL_CALLS)) return null;
    return parseCallObjects(region.slice(TOOL_CALLS.length), known, 'arguments');
  },
};

/**
 * Mistral's template only knows call ids of exactly nine letters and digits (it raises on others);
 * Responses ids are longer, so each maps to a stable nine-character one, the same for a call and
 * its result.
 *
 * @example
 * mistralCallId('call00001'); // 'call00001'
 * mistralCallId('call_abc123def456').length; // 9
 */
export function mistralCallId(id: string): string {
  if (/^[a-zA-Z0-9]{9}$/.test(id)) return id;
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619) >>> 0;
  let h2 = h ^ 0x9e3779b9;
  for (let i = id.length - 1; i >= 0; i--) h2 = Math.imul(h2 ^ id.charCodeAt(i), 16777619) >>> 0;
  return (h.toString(36) + h2.toString(36)).padStart(9, '0').slice(-9);
}
