import type { ResponseItem, Tool } from 'openai/resources/responses/responses';
import { clip, invalidRequest } from '../../../../common/api-error';
import type { FunctionToolSpec, ToolChoiceSpec } from '../../../../engine/types';
import type { McpConnector, McpServer, McpTarget } from '../../../hosted';
import { newId } from '../../../http/ids';
import { lazyModule } from '../../../http/lazy-module';
import { type ApprovalRequestItem, checkApprovals } from './mcp-approvals';

/** Listing MCP servers (hosted/mcp.ts): loaded by the first request with an `mcp` tool (issue 36). */
const mcpListing = lazyModule('MCP', () => import('../../../hosted/mcp'));

/** The parsed tool choice, as far as `mcp` goes (`ParsedToolChoice` of `tool-options.ts`). */
export interface McpToolChoice {
  choice: ToolChoiceSpec;
  allowed: readonly { type: string; server_label?: string }[];
  mcpNames?: Map<string, Set<string> | null>;
  forcedMcp?: { label: string; name: string | null };
}

/** What the run needs to serve a request's `mcp` tools. */
export interface McpPlan {
  connector: McpConnector;
  servers: McpServer[];
  /** The tools the model may call, by the name it calls them. */
  targets: Map<string, McpTarget>;
  /** Approved requests (from this request's input) to run before the model's first pass. */
  approved: ApprovalRequestItem[];
}

/**
 * Plans the request's `mcp` tools: checks its approval responses (400s first, before any network),
 * lists each server once per response chain (a 424 when one cannot be listed), and names the tools
 * the model is shown (each server's own `allowed_tools` applied) and those of them it may call
 * (`tool_choice` applied too: the prompt shows every tool whatever the choice). Returns the plan,
 * the specs to show, the names it may call, and the name a `{type:'mcp', name}` tool choice forces.
 *
 * @example
 * const { plan, specs, callable } = await planMcp(mcpRun, toolChoice, items, firstInput, { connector, signal, functionNames });
 */
export async function planMcp(
  mcpRun: readonly Tool.Mcp[],
  toolChoice: McpToolChoice,
  items: readonly ResponseItem[],
  firstInput: number,
  deps: { connector?: McpConnector; signal?: AbortSignal; functionNames: ReadonlySet<string> },
): Promise<{ plan: McpPlan | null; specs: FunctionToolSpec[]; callable: string[]; forced: string | null }> {
  const approved = checkApprovals(items, firstInput, new Set(mcpRun.map((t) => t.server_label)));
  if (mcpRun.length === 0) return { plan: null, specs: [], callable: [], forced: null };
  if (!deps.connector)
    throw invalidRequest('tools', 'The mcp tool is not available on this endpoint.', 'unsupported_value');
  const signal = deps.signal ?? new AbortController().signal;
  const { listMcpServers, mcpTargets } = await mcpListing();
  const servers = await listMcpServers(mcpRun, items, deps.connector, signal, () => newId('mcpl'));
  checkApprovedTools(approved, servers, items, firstInput);
  const targets = mcpTargets(servers, deps.functionNames);
  const allowedLabels = new Set(
    toolChoice.choice === 'none'
      ? []
      : toolChoice.allowed.flatMap((t) => (t.type === 'mcp' && t.server_label ? [t.server_label] : [])),
  );
  const specs: FunctionToolSpec[] = [];
  const callable: string[] = [];
  for (const [name, target] of targets) {
    const only = toolChoice.mcpNames?.get(target.label);
    if (allowedLabels.has(target.label) && !(only && !only.has(target.info.name))) callable.push(name);
    const about = servers.find((s) => s.tool.server_label === target.label)?.tool.server_description;
    const own = target.info.description ?? '';
    specs.push({
      name,
      // The server's description (the request's own words) says what the tool belongs to.
      description: about ? `${own}${own ? ' ' : ''}(MCP server '${target.label}': ${about})` : own || null,
      parameters: (target.info.input_schema as Record<string, unknown> | null) ?? { type: 'object' },
      strict: false,
    });
  }
  let forced: string | null = null;
  const f = toolChoice.forcedMcp;
  if (f?.name != null) {
    const hit = [...targets].find(([, t]) => t.label === f.label && t.info.name === f.name);
    if (!hit)
      throw invalidRequest(
        'tool_choice.name',
        `Tool '${clip(f.name)}' not found on MCP server '${clip(f.label)}' (or not allowed by its allowed_tools).`,
        'invalid_value',
      );
    forced = hit[0];
  }
  return { plan: { connector: deps.connector, servers, targets, approved }, specs, callable, forced };
}

/**
 * An approved call runs only a tool its server lists for this request (`allowed_tools` applied):
 * approval never reaches a tool the request does not offer. Otherwise a 400 on the answer.
 */
function checkApprovedTools(
  approved: readonly ApprovalRequestItem[],
  servers: readonly McpServer[],
  items: readonly ResponseItem[],
  firstInput: number,
): void {
  for (const req of approved) {
    const server = servers.find((s) => s.tool.server_label === req.server_label);
    if (server?.tools.some((t) => t.name === req.name)) continue;
    const at = items.findIndex(
      (i, k) =>
        k >= firstInput &&
        i.type === 'mcp_approval_response' &&
        (i as { approval_request_id?: string }).approval_request_id === req.id,
    );
    throw invalidRequest(
      `input[${at - firstInput}].approval_request_id`,
      `The tool '${clip(req.name)}' of approval request '${clip(req.id)}' is not offered by MCP server '${clip(req.server_label)}' in this request (see its allowed_tools).`,
      'invalid_value',
    );
  }
}
