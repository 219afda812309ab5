import type { ResponseCustomToolCallItem, ResponseOutputItem } from 'openai/resources/responses/responses';
import { newId } from '../../http/ids';

/**
 * One whole custom tool call as OpenAI streams it (issue 45): `output_item.added` (through
 * `addItem`) with an empty `input`, the input as one `custom_tool_call_input.delta`,
 * `custom_tool_call_input.done`, then `output_item.done`. Engines parse a call before yielding it
 * (as for function calls, function-call-events.ts), so its input arrives at once.
 *
 * @example
 * emitCustomToolCall('sql', 'SELECT 1', (item) => run.addItem(item), send);
 */
export function emitCustomToolCall(
  name: string,
  input: string,
  addItem: (item: ResponseOutputItem) => number,
  send: (event: Record<string, unknown>) => void,
  id: (prefix: 'ctc' | 'call') => string = newId,
): ResponseCustomToolCallItem {
  const item: ResponseCustomToolCallItem = {
    id: id('ctc'),
    type: 'custom_tool_call',
    status: 'in_progress',
    call_id: id('call'),
    name,
    input: '',
  };
  const outputIndex = addItem(item);
  const at = { item_id: item.id, output_index: outputIndex };
  item.input = input;
  send({ type: 'response.custom_tool_call_input.delta', ...at, delta: input });
  send({ type: 'response.custom_tool_call_input.done', ...at, input });
  item.status = 'completed';
  send({ type: 'response.output_item.done', output_index: outputIndex, item: structuredClone(item) });
  return item;
}
