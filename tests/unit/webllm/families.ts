/**
 * One web-llm model per family, the conversation template its mlc-chat-config.json names (from
 * mlc-llm), and what the model writes for a call of get_weather, in its native format as decoded
 * text: one call, and two calls (Paris, then Rome) as the family writes several. Formats are taken
 * from the families' published chat templates and model cards.
 */
import type { FunctionToolSpec } from '../../../src/engine/types';
import type { ConvTemplateName } from '../../helpers/webllm-prompt';

export interface FamilyCase {
  model: string;
  conv: ConvTemplateName;
  /** Native output for get_weather({city: 'Paris'}), and for Paris then Rome. */
  one: string;
  two: string;
  /** One call with arguments that break the schema (no `city`): the grammar must refuse it. */
  bad: string;
  /**
   * What a model that always thinks writes before anything else (its think block, or only the end
   * of it where the template opened it); the grammar leaves it free and holds what follows.
   */
  think?: string;
  vision?: boolean;
  /**
   * Calls are the whole reply (Llama 3.x, Mistral v0.3): prose before a call makes it prose, nothing
   * follows it.
   */
  leading?: boolean;
}

export const weather: FunctionToolSpec = {
  name: 'get_weather',
  description: 'Get the weather for a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
    required: ['city'],
  },
  strict: true,
};

export const clock: FunctionToolSpec = {
  name: 'get_time',
  description: null,
  parameters: { type: 'object', properties: {} },
  strict: null,
};

const hermes = (city: string) =>
  `<tool_call>\n{"name": "get_weather", "arguments": {"city": "${city}"}}\n</tool_call>`;
const hermesBad = '<tool_call>\n{"name": "get_weather", "arguments": {"town": "Paris"}}\n</tool_call>';
const hermesCase = (model: string, conv: ConvTemplateName, think?: string): FamilyCase => ({
  model,
  conv,
  one: hermes('Paris'),
  two: `${hermes('Paris')}\n${hermes('Rome')}`,
  bad: hermesBad,
  ...(think ? { think } : {}),
});

const qwenXml = (city: string) =>
  `<tool_call>\n<function=get_weather>\n<parameter=city>\n${city}\n</parameter>\n</function>\n</tool_call>`;
const llama = (city: string) => `{"name": "get_weather", "parameters": {"city": "${city}"}}`;
const ministral = (city: string) => `[TOOL_CALLS]get_weather[ARGS]{"city": "${city}"}`;
const call = (city: string) => `{"name": "get_weather", "arguments": {"city": "${city}"}}`;

export const FAMILIES: FamilyCase[] = [
  hermesCase('Qwen2.5-1.5B-Instruct-q4f16_1-MLC', 'qwen2'),
  hermesCase('Qwen3-0.6B-q4f16_1-MLC', 'qwen3', '<think>\nThe user wants Paris.\n</think>\n\n'),
  {
    model: 'Qwen3.5-0.8B-q4f16_1-MLC',
    conv: 'qwen3_5',
    one: qwenXml('Paris'),
    two: `${qwenXml('Paris')}\n${qwenXml('Rome')}`,
    bad: '<tool_call>\n<function=get_weather>\n<parameter=town>\nParis\n</parameter>\n</function>\n</tool_call>',
    think: 'The user wants Paris.\n</think>\n\n',
  },
  hermesCase('Hermes-3-Llama-3.1-8B-q4f16_1-MLC', 'hermes3_llama-3_1'),
  hermesCase('Hermes-2-Pro-Llama-3-8B-q4f16_1-MLC', 'hermes2_pro_llama3'),
  hermesCase('Hermes-2-Pro-Mistral-7B-q4f16_1-MLC', 'open_hermes_mistral'),
  {
    model: 'Llama-3.2-1B-Instruct-q4f16_1-MLC',
    conv: 'llama-3_1',
    one: llama('Paris'),
    two: `<|python_tag|>${llama('Paris')}; ${llama('Rome')}`,
    bad: '{"name": "get_weather", "parameters": {"town": "Paris"}}',
    leading: true,
  },
  {
    model: 'Llama-3-8B-Instruct-q4f16_1-MLC',
    conv: 'llama-3',
    one: llama('Paris'),
    two: `${llama('Paris')}; ${llama('Rome')}`,
    bad: '{"name": "get_weather", "parameters": {}}',
    leading: true,
  },
  {
    model: 'Phi-4-mini-instruct-q4f16_1-MLC',
    conv: 'phi-4',
    // As vLLM's phi4_mini_json and SGLang's Phi4MiniDetector read calls; one list per call.
    one: `functools[${call('Paris')}]`,
    two: `functools[${call('Paris')}]\nfunctools[${call('Rome')}]`,
    bad: 'functools[{"name": "get_weather", "arguments": {"town": "Paris"}}]',
  },
  {
    model: 'Mistral-7B-Instruct-v0.3-q4f16_1-MLC',
    conv: 'mistral_default',
    one: `[TOOL_CALLS] [${call('Paris')}]`,
    two: `[TOOL_CALLS] [${call('Paris')}, ${call('Rome')}]`,
    bad: '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"town": "Paris"}}]',
    // The template writes a turn's calls as the whole turn (issue 33 §9).
    leading: true,
  },
  {
    model: 'Ministral-3-3B-Reasoning-2512-q4f16_1-MLC',
    conv: 'ministral3_reasoning',
    one: ministral('Paris'),
    two: `${ministral('Paris')}${ministral('Rome')}`,
    bad: '[TOOL_CALLS]get_weather[ARGS]{"town": "Paris"}',
  },
  // Families with no native format: taught the `<tool_call>` one.
  hermesCase(
    'DeepSeek-R1-Distill-Qwen-7B-q4f16_1-MLC',
    'deepseek_r1_qwen',
    '<think>\nThe user wants Paris.\n</think>\n\n',
  ),
  hermesCase('Phi-3.5-mini-instruct-q4f16_1-MLC', 'phi-3'),
  hermesCase('gemma-2-2b-it-q4f16_1-MLC', 'gemma_instruction'),
  hermesCase('gemma3-1b-it-q4f16_1-MLC', 'gemma3_instruction'),
  hermesCase('SmolLM2-360M-Instruct-q4f16_1-MLC', 'chatml'),
];
