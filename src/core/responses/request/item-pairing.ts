import type { ResponseItem } from 'openai/resources/responses/responses';
import { clip, invalidRequest } from '../../../common/api-error';
import { asFunctionHistory } from './tools/client-tools/client-history';
import { asFunctionItem } from './tools/custom-tool-items';

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
  const waiting = new WaitingCalls();
  for (const raw of items) {
    // Custom and client tools' calls and outputs (issue 45) pair as the function calls the model met.
    const item = asFunctionHistory(raw) ?? asFunctionItem(raw);
    if (item.type === 'function_call') {
      calls.add(item.call_id);
      waiting.add(item.call_id, item.name);
    } else if (item.type === 'function_call_output') {
      const callId = item.call_id ?? waiting.oldest(item.name || null);
      // An output without call_id and no call to take is the translation's error (it names the item).
      if (callId === undefined) continue;
      if (!calls.has(callId)) {
        throw invalidRequest(
          'input',
          `No tool call found for function call output with call_id ${clip(callId)}.`,
        );
      }
      waiting.answer(callId);
    } else if (item.type === 'message' && item.role === 'user') {
      const first = waiting.oldest(null);
      if (first !== undefined)
        throw invalidRequest('input', `No tool output found for function call ${clip(first)}.`);
    }
  }
}

/**
 * The calls still waiting for their output, oldest first, found in O(1) amortized by id or by name.
 * Issue 27: a plain list searched per output was quadratic, 300 ms for 10k calls answered in reverse.
 */
class WaitingCalls {
  /** By arrival number: the call's id and name; a Map keeps arrival order. */
  private readonly all = new Map<number, { id: string; name: string }>();
  private readonly byId = new Map<string, Queue>();
  private readonly byName = new Map<string, Queue>();
  private next = 0;

  add(id: string, name: string): void {
    const n = this.next++;
    this.all.set(n, { id, name });
    queueIn(this.byId, id).push(n);
    queueIn(this.byName, name).push(n);
  }

  /** The id of the oldest waiting call (named `name`, unless null). */
  oldest(name: string | null): string | undefined {
    if (name === null) return this.all.values().next().value?.id;
    const n = this.head(this.byName.get(name));
    return n === undefined ? undefined : this.all.get(n)?.id;
  }

  /** The oldest waiting call with this id is answered. */
  answer(id: string): void {
    const n = this.head(this.byId.get(id));
    if (n !== undefined) this.all.delete(n);
  }

  /** The first arrival number in `q` still waiting; answered ones are dropped on the way. */
  private head(q: Queue | undefined): number | undefined {
    if (!q) return undefined;
    while (q.start < q.items.length && !this.all.has(q.items[q.start] as number)) q.start++;
    return q.items[q.start];
  }
}

/** A list read from `start` on: dropping its head is O(1). */
type Queue = { items: number[]; start: number; push(n: number): void };

function queueIn(map: Map<string, Queue>, key: string): Queue {
  let q = map.get(key);
  if (!q) {
    const items: number[] = [];
    q = { items, start: 0, push: (n) => items.push(n) };
    map.set(key, q);
  }
  return q;
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
