/**
 * An engine request with every field at its plain default (text, no tools, no limits), for tests
 * that call an engine or plan a request directly rather than through the HTTP layer.
 */
import type { GenerateRequest } from '../../src/engine/types';

/**
 * @example
 * engine.generate(generateRequest({ model: 'm', maxOutputTokens: 2 }), signal);
 */
export function generateRequest(over: Partial<GenerateRequest> = {}): GenerateRequest {
  return {
    model: 'tiny',
    messages: [{ role: 'user', content: 'Hi' }],
    tools: [],
    toolChoice: 'auto',
    parallelToolCalls: true,
    format: { type: 'text' },
    reasoningEffort: null,
    maxOutputTokens: null,
    temperature: null,
    topP: null,
    topLogprobs: null,
    ...over,
  };
}
