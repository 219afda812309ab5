/**
 * The families taught a borrowed tool format (or, for Phi-4-mini, one no published template writes),
 * and the turns their published template is given for a golden conversation: calls as assistant
 * text and results as user turns, written here by hand, not taken from the code under test. Both
 * engines' taught goldens render them (tests/unit/webllm/goldens-taught.test.ts,
 * tests/unit/wllama/goldens-taught.test.ts).
 */
import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import type { ChatMessage } from '../../../src/engine/types';
import type { ConvTemplateName } from '../../helpers/webllm-prompt';

/** Qwen2.5's tool text for get_weather, word for word (checked against Qwen2.5's template in goldens-taught.test.ts). */
export const TAUGHT_TOOLS =
  '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
  'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
  '{"type": "function", "function": {"name": "get_weather", "description": "Get the weather for a city.", ' +
  '"parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", ' +
  '"enum": ["c", "f"]}}, "required": ["city"]}}}\n</tools>\n\n' +
  'For each function call, return a json object with function name and arguments within ' +
  '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>';

/** Phi-4-mini's tool list, which its template writes between `<|tool|>` and `<|/tool|>`. */
const PHI4_TOOLS =
  '[{"name": "get_weather", "description": "Get the weather for a city.", "parameters": {"type": "object", ' +
  '"properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}}, "required": ["city"]}}]';

/** Each call's arguments as the model reads them back (Python's `json.dumps` spacing). */
const ARGUMENTS: Record<string, string> = {
  '{"city":"Paris"}': '{"city": "Paris"}',
  '{"city":"Rome"}': '{"city": "Rome"}',
  '{"city":"Paris","unit":"c","days":3}': '{"city": "Paris", "unit": "c", "days": 3}',
};

export interface Taught {
  model: string;
  conv: ConvTemplateName;
  template: string;
  /** How a call reads in history, and a result in the user turn that carries it back. */
  call: (args: string) => string;
  result: (content: string) => string;
  /** Phi-4-mini: the tools go in the system message's `tools` field, which its template renders. */
  toolsField?: boolean;
  /** The system text the template writes when the request has none (SmolLM2's), which intab writes too. */
  defaultSystem?: string;
  /** Gemma 2's template refuses a system turn: the system text heads the first user turn. */
  foldSystem?: boolean;
  extra?: Record<string, unknown>;
}

const hermesCall = (args: string) =>
  `<tool_call>\n{"name": "get_weather", "arguments": ${args}}\n</tool_call>`;
const hermesResult = (content: string) => `<tool_response>\n${content}\n</tool_response>`;
const taught = (
  model: string,
  conv: ConvTemplateName,
  template: string,
  more: Partial<Taught> = {},
): Taught => ({
  model,
  conv,
  template,
  call: hermesCall,
  result: hermesResult,
  ...more,
});

export const TAUGHT: Taught[] = [
  taught('Phi-3.5-mini-instruct-q4f16_1-MLC', 'phi-3', 'microsoft-Phi-3.5-mini-instruct'),
  taught('Phi-4-mini-instruct-q4f16_1-MLC', 'phi-4', 'microsoft-Phi-4-mini-instruct', {
    call: (args) => `functools[{"name": "get_weather", "arguments": ${args}}]`,
    result: (content) => `<|tool_response|>${content}`,
    toolsField: true,
  }),
  taught('gemma-2-2b-it-q4f16_1-MLC', 'gemma_instruction', 'google-gemma-2-2b-it', { foldSystem: true }),
  taught('gemma3-1b-it-q4f16_1-MLC', 'gemma3_instruction', 'google-gemma-3-it'),
  taught('SmolLM2-360M-Instruct-q4f16_1-MLC', 'chatml', 'HuggingFaceTB-SmolLM2-Instruct', {
    defaultSystem: 'You are a helpful AI assistant named SmolLM, trained by Hugging Face',
  }),
  taught(
    'DeepSeek-R1-Distill-Qwen-7B-q4f16_1-MLC',
    'deepseek_r1_qwen',
    'deepseek-ai-DeepSeek-R1-Distill-Qwen-32B',
    {
      extra: { bos_token: '<｜begin▁of▁sentence｜>' },
    },
  ),
  taught(
    'DeepSeek-R1-Distill-Llama-8B-q4f16_1-MLC',
    'deepseek_r1_llama',
    'deepseek-ai-DeepSeek-R1-Distill-Llama-8B',
    { extra: { bos_token: '<｜begin▁of▁sentence｜>' } },
  ),
];

/** A vendored published template by name (tests/fixtures/templates, without `.jinja`). */
export function template(name: string): Template {
  return new Template(
    readFileSync(new URL(`../../fixtures/templates/${name}.jinja`, import.meta.url), 'utf8'),
  );
}

/** The turns the template is given: calls as assistant text, results as one user turn per run. */
export function turns(
  family: Taught,
  messages: ChatMessage[],
  tools: boolean,
): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const system = messages.find((m) => m.role === 'system')?.content ?? family.defaultSystem ?? '';
  if (family.toolsField && tools) out.push({ role: 'system', content: system, tools: PHI4_TOOLS });
  else if (tools) out.push({ role: 'system', content: [system, TAUGHT_TOOLS].filter(Boolean).join('\n\n') });
  else if (system) out.push({ role: 'system', content: system });
  for (const m of messages) {
    const last = out[out.length - 1];
    if (m.role === 'system') continue;
    if (m.role === 'tool') {
      const text = family.result(m.content);
      if (last?.role === 'user' && last.results) last.content = `${last.content}\n${text}`;
      else out.push({ role: 'user', content: text, results: true });
    } else if (m.role === 'assistant') {
      const calls = (m.tool_calls ?? []).map((c) => family.call(ARGUMENTS[c.function.arguments] ?? '?'));
      out.push({ role: 'assistant', content: [m.content ?? '', ...calls].filter(Boolean).join('\n') });
    } else out.push({ role: 'user', content: m.content });
  }
  const plain = out.map(({ results: _, ...m }) => m);
  if (!family.foldSystem || plain[0]?.role !== 'system') return plain;
  const [first, user, ...rest] = plain;
  return [{ ...user, content: `${first?.content}\n\n${user?.content}` }, ...rest];
}
