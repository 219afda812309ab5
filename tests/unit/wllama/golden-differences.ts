/**
 * Where the prompt llama.cpp renders from intab's inputs differs on purpose from the published
 * template's rendering of the same conversation (tests/unit/wllama/goldens.test.ts), each stated
 * where it shows.
 */
import type { Difference } from '../webllm/golden-families';

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
