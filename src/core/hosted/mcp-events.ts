import type { ResponseOutputItem } from 'openai/resources/responses/responses';
import { MCP_EVENT_ORDER, type RunOutput } from './hosted-events';

/**
 * How the `mcp` tool's items go out on the stream, step by step in {@link MCP_EVENT_ORDER}: live
 * (the work runs at the `run` step) and again from a stored item (a replay of a response that kept
 * no event log).
 */

/** An `mcp_*` item as the run holds it; `status` only on `mcp_call`. */
export interface McpItem {
  id: string;
  type: keyof typeof MCP_EVENT_ORDER;
  status?: string;
  arguments?: string;
  error?: unknown;
}

/**
 * Emits `item`'s events, running `work` at its `run` step: `work` fills the item and says whether it
 * ended `completed` or `failed`. When `work` throws (the run was stopped), the item ends
 * `incomplete` with its `output_item.done` and the error is rethrown.
 *
 * @example
 * await emitMcpItem(run.hostedOutput(), call, async () => (await callTool(call)) ? 'completed' : 'failed');
 */
export async function emitMcpItem(
  out: RunOutput,
  item: McpItem,
  work: () => Promise<'completed' | 'failed'> = async () => 'completed',
): Promise<void> {
  let outputIndex = -1;
  let ended: 'completed' | 'failed' = 'completed';
  const done = () =>
    out.send({ type: 'response.output_item.done', output_index: outputIndex, item: structuredClone(item) });
  for (const step of MCP_EVENT_ORDER[item.type]) {
    if (step === 'added') outputIndex = out.addItem(item as unknown as ResponseOutputItem);
    else if (step === 'run') {
      try {
        ended = await work();
      } catch (err) {
        if ('status' in item) item.status = 'incomplete';
        if (outputIndex >= 0) done();
        throw err;
      }
    } else if (step === 'done') {
      if ('status' in item) item.status = ended;
      done();
    } else send(out, item, step, outputIndex, ended);
  }
}

/**
 * The same events again for a stored item: added as it began (an `mcp_call` `in_progress`, without
 * output or error), done as it was stored.
 */
export function replayMcpItem(out: RunOutput, stored: McpItem & { output?: unknown }): void {
  const item: McpItem & { output?: unknown } = structuredClone(stored);
  const ended =
    stored.status === 'failed' || (stored.type !== 'mcp_call' && stored.error) ? 'failed' : 'completed';
  if (item.type === 'mcp_call') {
    item.status = 'in_progress';
    item.output = null;
    item.error = null;
  }
  let outputIndex = -1;
  for (const step of MCP_EVENT_ORDER[item.type]) {
    if (step === 'added') outputIndex = out.addItem(item as unknown as ResponseOutputItem);
    else if (step === 'run') Object.assign(item, structuredClone(stored), { status: item.status });
    else if (step === 'done') {
      Object.assign(item, structuredClone(stored));
      out.send({ type: 'response.output_item.done', output_index: outputIndex, item: structuredClone(item) });
    } else send(out, item, step, outputIndex, ended);
  }
}

function send(
  out: RunOutput,
  item: McpItem,
  step: 'in_progress' | 'arguments' | 'ended',
  outputIndex: number,
  ended: 'completed' | 'failed',
): void {
  const at = { item_id: item.id, output_index: outputIndex };
  if (step === 'arguments') {
    const args = item.arguments ?? '';
    out.send({ type: 'response.mcp_call_arguments.delta', ...at, delta: args });
    out.send({ type: 'response.mcp_call_arguments.done', ...at, arguments: args });
    return;
  }
  const name = step === 'ended' ? ended : step;
  if (item.type === 'mcp_call' && step === 'in_progress') item.status = 'in_progress';
  out.send({ type: `response.${item.type}.${name}`, ...at });
}
