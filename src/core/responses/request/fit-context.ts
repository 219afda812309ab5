/**
 * `truncation`: fitting a long input into the model's context window. With `auto` the oldest
 * non-system messages go first. Issue 27: the old loop dropped one message and recounted the whole
 * list, O(n²) counts (22k messages took 180 s, and nothing could stop it). Issue 38: counting each
 * message on its own was still n counts, and on wllama every whole-prompt count that fits costs a
 * prefill (3,000 messages took over 8 s under load). Now the messages are sized once, locally (their
 * JSON length: no engine call), and the whole prompt is counted only at drop points: the first one
 * predicted from the sizes, scaled to the last exact count (tokens per character), then a search
 * that alternates that prediction with bisection (two predictions that do not halve the interval, then
 * one bisection), so at most about 3·log2(n) counts and usually
 * three. Every count yields (pace) and stops when the request is aborted.
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
  const sizes = groupSizes(messages, groups);
  const total = messageSize(messages);
  /** The first drop point in (lo, hi) that the sizes, scaled to lo's exact count, say fits. */
  const predict = (lo: number, countLo: number, hi: number): number => {
    const kept = total - (sizes[lo] as number);
    const perChar = kept > 0 ? countLo / kept : 0;
    // Binary search over the prefix sums: no count, O(log n).
    let a = lo + 1;
    let b = hi;
    while (a < b) {
      const mid = a + Math.floor((b - a) / 2);
      if (countLo - perChar * ((sizes[mid] as number) - (sizes[lo] as number)) <= budget) b = mid;
      else a = mid + 1;
    }
    return a;
  };

  // lo: a drop point known not to fit (its exact count); hi: the fewest drops that may fit
  // (verified once the search closes). Counts fall as more is dropped.
  let lo = 0;
  let countLo = count;
  let hi = groups.length;
  let hiFits = false;
  let misses = 0;
  for (;;) {
    if (hi - lo <= 1) {
      if (hiFits) return keepAfter(messages, groups, hi);
      const fewest = await countOf(hi);
      if (fewest > budget) throw overflow(fewest, budget, ', even after truncation');
      return keepAfter(messages, groups, hi);
    }
    const width = hi - lo;
    // A prediction that did not halve the interval twice running gives way to one bisection.
    const guess = misses >= 2 ? lo + Math.floor(width / 2) : predict(lo, countLo, hi);
    const at = Math.min(hi - 1, Math.max(lo + 1, guess));
    const n = await countOf(at);
    if (n <= budget) {
      hi = at;
      hiFits = true;
    } else {
      lo = at;
      countLo = n;
    }
    misses = misses >= 2 || hi - lo <= width / 2 ? 0 : misses + 1;
  }
}

/** Each message's size in characters of its JSON: what the counts are predicted from. */
function messageSize(messages: ChatMessage[]): number {
  let n = 0;
  for (const m of messages) n += JSON.stringify(m).length;
  return n;
}

/** sizes[d]: the size of the messages the first `d` groups drop (prefix sums, sizes[0] = 0). */
function groupSizes(messages: ChatMessage[], groups: Group[]): number[] {
  const out = [0];
  let sum = 0;
  for (const g of groups) {
    for (let i = g.start; i < g.end; i++) sum += JSON.stringify(messages[i]).length;
    out.push(sum);
  }
  return out;
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
