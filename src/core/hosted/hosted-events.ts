import type { ResponseOutputItem } from 'openai/resources/responses/responses';

/**
 * How a hosted tool's item goes out on the stream. Each kind has one row in
 * {@link HOSTED_EVENT_ORDER}: the names are OpenAI's (`ResponseStreamEvent` in the `openai`
 * package), the order is by analogy with the captured `web_search_call` sequence, so it lives in
 * this one table and nowhere else.
 *
 * What was checked (issue 22's research notes): the `openai` package's doc comments give the three
 * steps' meaning in this order ("Emitted when a file search call is initiated" → "…is currently
 * searching" → "…is completed (results found)", `ResponseFileSearchCall{InProgress,Searching,
 * Completed}Event`; the API reference, platform.openai.com/docs/api-reference/responses-streaming,
 * words them the same), and third-party consumers and emulators of the stream use the same order
 * (LiteLLM's `ResponsesAPIStreamEvents`, OpenAI-compatible proxies' tests). No captured OpenAI
 * stream with a `file_search_call` was found in the searched corpora, so the row stays *to confirm*
 * against a real capture; nothing found contradicts it.
 */

/** What emitting a hosted item needs of the run; `ResponseRun.hostedOutput()` provides it. */
export interface RunOutput {
  /** Closes what is open (a message, a reasoning item), adds `item` (`output_item.added` goes out), returns its `output_index`. */
  addItem(item: ResponseOutputItem): number;
  /** Sends one event; the run numbers it. */
  send(event: Record<string, unknown>): void;
}

/**
 * The events of each hosted item kind, in order. `added` and `done` are `response.output_item.added`
 * and `.done`; `run` is where the tool runs (no event); any other step is `response.<kind>.<step>`,
 * carrying `{item_id, output_index}`, and the item's `status` becomes that step.
 */
export const HOSTED_EVENT_ORDER = {
  file_search_call: ['added', 'in_progress', 'searching', 'run', 'completed', 'done'],
  // From a real OpenAI capture (SMG's docs/hosted-tools-mcp-builtin.md); `code` is the code's deltas and done.
  code_interpreter_call: ['added', 'in_progress', 'code', 'interpreting', 'run', 'completed', 'done'],
} as const satisfies Record<string, readonly string[]>;

/**
 * The events of the `mcp` tool's items, in order (`mcp-events.ts` sends them). Names are OpenAI's;
 * the order is the expected one, *to confirm* against a capture. `arguments` is
 * `response.mcp_call_arguments.delta` then `.done`; `ended` is `response.<kind>.completed`, or
 * `.failed` when the call or listing failed. An `mcp_approval_request` has no event of its own:
 * only `output_item.added` and `.done`.
 */
export const MCP_EVENT_ORDER = {
  mcp_list_tools: ['added', 'in_progress', 'run', 'ended', 'done'],
  mcp_call: ['added', 'in_progress', 'arguments', 'run', 'ended', 'done'],
  mcp_approval_request: ['added', 'done'],
} as const satisfies Record<string, readonly string[]>;

export type HostedKind = keyof typeof HOSTED_EVENT_ORDER;

/** A hosted item as the run holds it: its status moves as its events go out. */
export interface HostedItem {
  id: string;
  type: HostedKind;
  status: string;
  results?: unknown;
  /** `code_interpreter_call`'s code, sent as deltas at its `code` step. */
  code?: string | null;
}

/** How long the code deltas are that go out once the whole code is known (a replay, an engine that gave no partial call). */
const CODE_DELTA_CHARS = 64;

/**
 * The `code` step: `response.code_interpreter_call_code.delta` × N, then `.done` with the whole
 * code. `sent` is the code that already went out as the model wrote it: only the rest follows. Should
 * the whole call's code not start with it, the whole call wins: `.done` carries its code.
 */
function sendCode(out: RunOutput, item: HostedItem, outputIndex: number, sent = ''): void {
  const code = item.code ?? '';
  const rest = code.startsWith(sent) ? code.slice(sent.length) : '';
  const at = { item_id: item.id, output_index: outputIndex };
  for (let i = 0; i < rest.length; i += CODE_DELTA_CHARS)
    out.send({ type: `response.${item.type}_code.delta`, ...at, delta: rest.slice(i, i + CODE_DELTA_CHARS) });
  out.send({ type: `response.${item.type}_code.done`, ...at, code });
}

/** An item already added and `in_progress` while the model wrote it (a streamed code call), and the code sent. */
export interface StartedItem {
  outputIndex: number;
  sent: string;
}

/**
 * Emits `item`'s events in {@link HOSTED_EVENT_ORDER}, running `work` at its `run` step (`work`
 * fills the item: queries, results; it answers `failed` for a call the tool could not run, which
 * ends the item `failed` and the response goes on). A `started` item (added while the model wrote
 * it) goes on from its `code` step. When `work` throws, the item ends `incomplete` if `aborted()`
 * says the run was stopped, else `failed`, with its `output_item.done`, and the error is rethrown.
 *
 * @example
 * await emitHostedItem(run.hostedOutput(), item, () => search(item), () => signal.aborted);
 */
export async function emitHostedItem<I extends HostedItem>(
  out: RunOutput,
  item: I,
  work: () => Promise<'completed' | 'failed'>,
  aborted: () => boolean,
  started?: StartedItem,
): Promise<void> {
  let outputIndex = started?.outputIndex ?? -1;
  let ended: 'completed' | 'failed' = 'completed';
  const done = () =>
    out.send({ type: 'response.output_item.done', output_index: outputIndex, item: structuredClone(item) });
  for (const step of HOSTED_EVENT_ORDER[item.type]) {
    if (started && (step === 'added' || step === 'in_progress')) continue;
    if (step === 'added') {
      // Added as the model began it: its code (if any) streams at the `code` step.
      const code = item.code;
      if (typeof code === 'string') item.code = '';
      outputIndex = out.addItem(item as unknown as ResponseOutputItem);
      if (typeof code === 'string') item.code = code;
    } else if (step === 'run') {
      try {
        ended = await work();
      } catch (err) {
        item.status = aborted() ? 'incomplete' : 'failed';
        if (outputIndex >= 0) done();
        throw err;
      }
    } else if (step === 'done') {
      item.status = ended;
      done();
    } else if (step === 'code') {
      sendCode(out, item, outputIndex, started?.sent);
    } else if (ended === 'completed') {
      item.status = step;
      out.send({ type: `response.${item.type}.${step}`, item_id: item.id, output_index: outputIndex });
    }
  }
}

/**
 * The same events again for a stored item (a replay of a response that kept no event log): the
 * item is added as it began, `in_progress` with no results, and done as it was stored.
 *
 * @example
 * replayHostedItem(run.hostedOutput(), storedFileSearchCall);
 */
export function replayHostedItem(out: RunOutput, stored: HostedItem & { results?: unknown }): void {
  const item: HostedItem = { ...structuredClone(stored), status: 'in_progress' };
  if ('results' in item) item.results = null;
  if ('outputs' in item) Object.assign(item, { outputs: null });
  if ('code' in item) item.code = '';
  // As live: the steps after the tool ran go out only when it completed.
  let ran = false;
  let outputIndex = -1;
  for (const step of HOSTED_EVENT_ORDER[item.type]) {
    if (step === 'added') outputIndex = out.addItem(item as unknown as ResponseOutputItem);
    else if (step === 'run') {
      Object.assign(item, structuredClone(stored), { status: item.status });
      ran = true;
    } else if (step === 'done') {
      item.status = stored.status;
      out.send({ type: 'response.output_item.done', output_index: outputIndex, item: structuredClone(item) });
    } else if (step === 'code') {
      sendCode(out, { ...item, code: stored.code }, outputIndex);
    } else if (!ran || stored.status === 'completed') {
      item.status = step;
      out.send({ type: `response.${item.type}.${step}`, item_id: item.id, output_index: outputIndex });
    }
  }
}
