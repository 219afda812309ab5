/**
 * Where the prompt llama.cpp renders from intab's inputs differs on purpose from the published
 * template's rendering of the same conversation (tests/unit/wllama/goldens.test.ts), each stated
 * where it shows.
 */
import type { Difference, NativeGolden } from '../webllm/golden-families';

/**
 * Native families that wllama serves from a GGUF with their published template and web-llm ships no
 * model of (so they have no web-llm golden): QwQ (Qwen2.5's `<tool_call>` format, a think block).
 */
export const WLLAMA_ONLY: NativeGolden[] = [
  { model: 'QwQ-32B-Q4_K_M', conv: 'qwen2', template: 'Qwen-QwQ-32B' },
];

export const WLLAMA_DIFFERENCES: Difference[] = [
  {
    model: /^llama-3\.[123]/i,
    conversations: ['parallel calls'],
    why: 'Meta’s template refuses parallel calls; intab hands it them as the model writes them, joined by "; "',
    refused: /only supports single tool-calls/,
    intab:
      '<|start_header_id|>assistant<|end_header_id|>\n\n{"name": "get_weather", "parameters": {"city": "Paris"}}; ' +
      '{"name": "get_weather", "parameters": {"city": "Rome"}}<|eot_id|>',
  },
];
