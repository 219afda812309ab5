/**
 * Tools (and a tool loop) that several engine tests declare alike, and the forced-call grammar they
 * check replies against.
 */
import type { ToolFormat } from '../../src/engine/tool-formats/types';
import type { ChatMessage, FunctionToolSpec } from '../../src/engine/types';
import { requestGrammarPaced } from '../../src/engine/wllama/grammar/request-grammar';

/** A strict `python` tool taking its code as one string (the code_interpreter's shape). */
export const PYTHON_TOOL: FunctionToolSpec = {
  name: 'python',
  description: 'Run Python',
  parameters: {
    type: 'object',
    properties: { code: { type: 'string' } },
    required: ['code'],
    additionalProperties: false,
  },
  strict: true,
};

/** A strict weather tool, for tool loops whose second turn reuses the first's cache. */
export const CITY_WEATHER: FunctionToolSpec = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};

/** {@link CITY_WEATHER} as a Responses request's `tools`. */
export const CITY_WEATHER_TOOLS = [{ type: 'function' as const, ...CITY_WEATHER }];

/** A non-strict weather tool whose parameter carries a description, for template renderings. */
export const CURRENT_WEATHER: FunctionToolSpec = {
  name: 'get_weather',
  description: 'Current weather',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', description: 'The city.' } },
    required: ['city'],
  },
  strict: false,
};

/** The call of {@link CURRENT_WEATHER} in {@link WEATHER_LOOP}. */
export const WEATHER_CALL = {
  id: 'call_1',
  type: 'function' as const,
  function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
};

/** A tool loop: the question, a call of {@link CURRENT_WEATHER}, its result. */
export const WEATHER_LOOP: ChatMessage[] = [
  { role: 'user', content: 'Weather in Paris?' },
  { role: 'assistant', content: null, tool_calls: [WEATHER_CALL] },
  { role: 'tool', tool_call_id: 'call_1', name: 'get_weather', content: '{"temp": 21}' },
];

/** wllama's GBNF for a reply that must call one of `tools` (one call, no reasoning, text output). */
export async function forcedCallGrammar(format: ToolFormat, tools: FunctionToolSpec[]): Promise<string> {
  return (await requestGrammarPaced({
    format,
    tools,
    forced: true,
    parallel: false,
    maxToolCalls: null,
    output: { type: 'text' },
    thinking: null,
  })) as string;
}
