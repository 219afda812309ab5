/**
 * The Paris weather tool loop the wllama template tests send (tests/e2e/wllama-formats.test.ts,
 * wllama-converted-gguf.test.ts), and the same loop as a published template is handed it.
 */

/**
 * A tool loop as Responses input: the question about Paris, a `get_weather` call under `callId`,
 * and its `result`.
 */
export function weatherLoopInput(callId: string, result = '{"temp": 21}') {
  return [
    { role: 'user', content: 'Weather in Paris?' },
    { type: 'function_call', call_id: callId, name: 'get_weather', arguments: '{"city":"Paris"}' },
    { type: 'function_call_output', call_id: callId, output: result },
  ];
}

/**
 * The loop of {@link weatherLoopInput} as a Hugging Face client hands it to a published template:
 * the call's arguments an object, under `id`.
 */
export function weatherLoopMessages(id: string, result = '{"temp": 21}') {
  return [
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }],
    },
    { role: 'tool', tool_call_id: id, content: result },
  ];
}
