import type { ResponseItem } from 'openai/resources/responses/responses';
import { clip, invalidRequest } from '../../../common/api-error';

/**
 * The rules OpenAI checks across the items of a request, each a 400 on `input`: every tool output
 * answers a call made before it, no call is left without its output once a new user message
 * follows, and no item id comes twice. Without them an orphan output reached the model as a tool
 * named `unknown`, and a skipped output left a chat template with a call that never returned.
 */

/**
 * Checks that function calls and their outputs pair up across `items` (history, then this request's
 * input, compactions expanded). An output without `call_id` takes the oldest waiting call of its
 * name, as the translation to chat messages does.
 *
 * @example
 * checkToolPairing([{ type: 'function_call_output', call_id: 'call_1', output: '1' }]);
 * // 400 "No tool call found for function call output with call_id call_1."
 */
export function checkToolPairing(items: readonly ResponseItem[]): void {
  const calls = new Set<string>();
  const waiting: { id: string; name: string }[] = [];
  for (const item of items) {
    if (item.type === 'function_call') {
      calls.add(item.call_id);
      waiting.push({ id: item.call_id, name: item.name });
    } else if (item.type === 'function_call_output') {
      const callId = item.call_id ?? waiting.find((w) => !item.name || w.name === item.name)?.id;
      // An output without call_id and no call to take is the translation's error (it names the item).
      if (callId === undefined) continue;
      if (!calls.has(callId)) {
        throw invalidRequest(
          'input',
          `No tool call found for function call output with call_id ${clip(callId)}.`,
        );
      }
      const i = waiting.findIndex((w) => w.id === callId);
      if (i >= 0) waiting.splice(i, 1);
    } else if (item.type === 'message' && item.role === 'user' && waiting[0]) {
      throw invalidRequest('input', `No tool output found for function call ${clip(waiting[0].id)}.`);
    }
  }
}

/**
 * Refuses an `input` in which two items share an id (item references count by the id they resolve to).
 *
 * @example
 * checkUniqueIds([msg('msg_1'), msg('msg_1')]); // 400 "Duplicate item found with id msg_1. …"
 */
export function checkUniqueIds(items: readonly ResponseItem[]): void {
  const seen = new Set<string>();
  for (const item of items) {
    const id = (item as { id?: string | null }).id;
    if (!id) continue;
    if (seen.has(id)) {
      throw invalidRequest(
        'input',
        `Duplicate item found with id ${clip(id)}. Remove duplicate items from your input and try again.`,
      );
    }
    seen.add(id);
  }
}
