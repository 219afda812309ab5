import type { ResponseFunctionToolCall, ResponseOutputItem } from 'openai/resources/responses/responses';
import { newId } from '../../http/ids';

/**
 * One whole function call as OpenAI streams it: `output_item.added` (through `addItem`), the
 * arguments as one delta, `function_call_arguments.done`, then `output_item.done`. Engines parse a
 * call before yielding it, so its arguments arrive at once.
 *
 * @example
 * emitFunctionCall('get_weather', '{"city":"Oslo"}', (item) => run.addItem(item), send);
 */
export function emitFunctionCall(
  name: string,
  args: string,
  addItem: (item: ResponseOutputItem) => number,
  send: (event: Record<string, unknown>) => void,
  id: (prefix: 'fc' | 'call') => string = newId,
): ResponseFunctionToolCall {
  const item: ResponseFunctionToolCall = {
    id: id('fc'),
    type: 'function_call',
    status: 'in_progress',
    call_id: id('call'),
    name,
    arguments: '',
  };
  const outputIndex = addItem(item);
  const at = { item_id: item.id as string, output_index: outputIndex };
  item.arguments = args;
  send({ type: 'response.function_call_arguments.delta', ...at, delta: args });
  send({ type: 'response.function_call_arguments.done', ...at, arguments: args, name });
  item.status = 'completed';
  send({ type: 'response.output_item.done', output_index: outputIndex, item: structuredClone(item) });
  return item;
}
