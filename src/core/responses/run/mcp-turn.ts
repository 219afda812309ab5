import type { EngineChunk } from '../../../engine/types';
import { emitApprovalRequest, emitMcpItem, type McpSessions, needsApproval, runMcpCall } from '../../hosted';
import { newId } from '../../http/ids';
import type { HostedTurn, LoopState } from './loop-state';
import type { ResponseRun } from './response-run';

/**
 * The run stage's MCP turns: a response's listings and approved calls before its first pass, and
 * each call the model makes to an MCP tool. The run loop loads this module (with the MCP client's
 * sessions) only for a response that offers an `mcp` tool (issue 36).
 */
export { McpSessions } from '../../hosted';

/**
 * Before the first pass: the listings this response made (each `mcp_list_tools` item), then each
 * call the user approved in this request's input, whose results the model reads first.
 */
export async function startMcp(
  run: ResponseRun,
  state: LoopState,
  sessions: McpSessions,
  signal: AbortSignal,
): Promise<void> {
  const plan = state.mcpPlan;
  for (const server of plan.servers)
    if (server.listing) await emitMcpItem(run.hostedOutput(), server.listing);
  for (const req of plan.approved) {
    if (signal.aborted) return;
    const call = { ...req, id: newId('mcp'), label: req.server_label, approvalRequestId: req.id };
    const result = await runMcpCall(run.hostedOutput(), call, sessions, signal);
    state.addResults([{ role: 'tool', tool_call_id: req.id, name: req.name, content: result }]);
  }
  if (plan.approved.length > 0) run.closeItems();
}

/**
 * A call the model made to an MCP tool: run now (its turn for the next pass) when approval is
 * waived for it, else an `mcp_approval_request` that ends the response (undefined).
 */
export async function mcpCall(
  run: ResponseRun,
  chunk: EngineChunk & { type: 'tool_call' },
  state: LoopState,
  sessions: McpSessions,
  signal: AbortSignal,
): Promise<HostedTurn | undefined> {
  const target = state.mcpTarget(chunk.name);
  const server = state.mcpPlan.servers.find((s) => s.tool.server_label === target?.label);
  if (!target || !server) return undefined;
  const { label, info } = target;
  if (needsApproval(server.tool, info)) {
    await emitApprovalRequest(run.hostedOutput(), newId('mcpr'), label, info.name, chunk.arguments);
    return undefined;
  }
  const id = newId('mcp');
  const call = { id, label, name: info.name, arguments: chunk.arguments };
  const result = await runMcpCall(run.hostedOutput(), call, sessions, signal);
  return {
    call: { id, type: 'function', function: { name: chunk.name, arguments: chunk.arguments } },
    result,
    parts: MCP_RESULT_PARTS,
    shorter: (keep) =>
      keep >= MCP_RESULT_PARTS
        ? result
        : `${result.slice(0, Math.floor((result.length * keep) / MCP_RESULT_PARTS))}\n(The rest of the output was cut to fit the model's context.)`,
  };
}

/** An MCP result is shortened in sixteenths of its length when it does not fit the next pass. */
const MCP_RESULT_PARTS = 16;
