/**
 * `truncation`: fitting a long input into the model's context window. With `auto` the oldest
 * non-system messages go first. Issue 27: the old loop dropped one message and recounted the whole
 * list, O(n²) counts (22k messages took 180 s, and nothing could stop it). Now each message is
 * counted once, the drop point comes from a running sum, and one count of the result checks it;
 * where an engine's counts do not add up exactly (a template joins messages), a binary search over
 * the drop point finishes the job in O(log n) further counts. Every step yields (pace) and stops
 * when the request is aborted.
 */
import { ApiError, invalidRequest } from '../../../common/api-error';
import { pace } from '../../../common/pace';
import type { ChatMessage, Engine, FunctionToolSpec, ModelInfo, PromptShape } from '../../../engine/types';

/** What {@link fitContext} needs besides the messages. */
export interface FitOptions {
  tools: FunctionToolSpec[];
  model: ModelInfo;
  truncation: 'auto' | 'disabled';
  engine: Engine;
  /** The request's signal: an abandoned request stops counting (a 499 nobody reads). */
  signal?: AbortSignal;
  /** Tool choice, format and effort: whole-prompt counts render what the generation will (issue 28). */
  shape?: PromptShape;
}

/**
 * Applies `truncation`: with `auto` the oldest non-system messages (each with the tool results
 * that follow it, which would confuse any template without their call) are dropped until the input
 * fits the model's context window; with `disabled` an oversized input is a 400.
 *
 * @example
 * messages = await fitContext(messages, { tools, model, truncation: 'auto', engine, signal });
 */
export async function fitContext(messages: ChatMessage[], opts: FitOptions): Promise<ChatMessage[]> {
  const { model, engine, tools } = opts;
  const budget = model.contextWindow;
  const count = await engine.countTokens(model.id, messages, tools, { shape: opts.shape });
  if (count <= budget) return messages;
  if (opts.truncation === 'disabled') throw overflow(count, budget, '');
  const groups = droppableGroups(messages);
  const countOf = async (dropped: number): Promise<number> => {
    stopIfAborted(opts.signal);
    const n = await engine.countTokens(model.id, keepAfter(messages, groups, dropped), tools, {
      shape: opts.shape,
    });
    await pace();
    return n;
  };

  // One count per message, and a running sum from the front: the first guess at the drop point.
  let estimate = count;
  let dropped = 0;
  for (const group of groups) {
    if (estimate <= budget) break;
    for (let i = group.start; i < group.end; i++) {
      stopIfAborted(opts.signal);
      estimate -= await engine.countTokens(model.id, [messages[i] as ChatMessage], []);
      await pace();
    }
    dropped++;
  }
  const guessed = await countOf(dropped);
  if (guessed <= budget) return keepAfter(messages, groups, dropped);

  // The counts did not add up (template markup shared between messages): the first drop point
  // that fits lies past the guess. Counts fall as more is dropped, so bisect.
  let lo = dropped; // does not fit
  let hi = groups.length;
  const fewest = await countOf(hi);
  if (fewest > budget) throw overflow(fewest, budget, ', even after truncation');
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if ((await countOf(mid)) <= budget) hi = mid;
    else lo = mid;
  }
  return keepAfter(messages, groups, hi);
}

/** A run of messages dropped together: a non-system message and the tool results right after it. */
interface Group {
  start: number;
  end: number;
}

/**
 * The groups `auto` may drop, oldest first. System messages stay wherever they are; the last
 * message (the turn being answered) is never dropped, nor anything after it.
 */
function droppableGroups(messages: ChatMessage[]): Group[] {
  const groups: Group[] = [];
  const last = messages.length - 1;
  for (let i = 0; i < last; ) {
    if (messages[i]?.role === 'system') {
      i++;
      continue;
    }
    let end = i + 1;
    while (messages[end]?.role === 'tool') end++;
    groups.push({ start: i, end });
    i = end;
  }
  return groups;
}

/** `messages` less the first `dropped` groups (system messages among them stay). */
function keepAfter(messages: ChatMessage[], groups: Group[], dropped: number): ChatMessage[] {
  if (dropped === 0) return messages;
  const cut = new Set<number>();
  for (const g of groups.slice(0, dropped)) for (let i = g.start; i < g.end; i++) cut.add(i);
  return messages.filter((_, i) => !cut.has(i));
}

function stopIfAborted(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  throw new ApiError(
    499,
    'invalid_request_error',
    'client_closed_request',
    null,
    'The client went away while its input was being truncated.',
  );
}

function overflow(count: number, budget: number, after: string): ApiError {
  const tail = after ? `${after}.` : '. Please adjust your input and try again.';
  return invalidRequest(
    'input',
    `Your input exceeds the context window of this model (${count} > ${budget} tokens)${tail}`,
    'context_length_exceeded',
  );
}
