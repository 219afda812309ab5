import type { ResponseItem, Tool } from 'openai/resources/responses/responses';
import { ApiError } from '../../common/api-error';
import { redactJson, redactText, secretsOf } from '../../common/redact';
import { MCP_LIST_DEADLINE_MS, MCP_MAX_OUTPUT_CHARS } from './budgets';
import type { RunOutput } from './hosted-events';
import { type McpConnector, McpFailure, type McpSession } from './mcp-connection';
import { emitMcpItem, type McpItem } from './mcp-events';
import { isAllowed, type McpToolInfo, offeredName } from './mcp-policy';
import { contentText, pastMcpResult } from './mcp-results';

/**
 * The remote `mcp` tool inside a response. Before the run: each server's tools, listed once per
 * response chain (a `mcp_list_tools` item for the label already in the context is reused) and
 * filtered by `allowed_tools`; a list that fails fails the request with OpenAI's 424. In the run:
 * each listed tool is a function the model calls by its own name; a call becomes an `mcp_call`
 * item (or, unless approval is waived, an `mcp_approval_request` that ends the response), and its
 * output goes back to the model as a tool result: data from a remote server, never instructions.
 */

/** One server of the request: its tool entry (secrets and all: never stored) and its tools. */
export interface McpServer {
  tool: Tool.Mcp;
  /** The listed tools `allowed_tools` lets through. */
  tools: McpToolInfo[];
  /** The `mcp_list_tools` item this response lists it with; null when one in the context was reused. */
  listing: McpListItem | null;
}

/** `mcp_list_tools`, as the response carries it. */
export interface McpListItem {
  id: string;
  type: 'mcp_list_tools';
  server_label: string;
  tools: McpToolInfo[];
  error?: string | null;
}

/** A tool the model may call: its server and the tool's own name. */
export interface McpTarget {
  label: string;
  info: McpToolInfo;
}

/** What a call needs to run: the item's id, and `approval_request_id` when the user approved it. */
export interface McpCallInput {
  id: string;
  label: string;
  name: string;
  arguments: string;
  approvalRequestId?: string;
}

/**
 * Each server's tools: reused from an `mcp_list_tools` item for its label in `context` (history
 * and input), else listed now. A server that cannot be listed is a 424, as OpenAI answers it.
 *
 * @example
 * const servers = await listMcpServers(mcpTools, inputItems, connector, signal, newId);
 */
export async function listMcpServers(
  tools: readonly Tool.Mcp[],
  context: readonly ResponseItem[],
  connector: McpConnector,
  signal: AbortSignal,
  newId: () => string,
  deadline: McpDeadline = mcpDeadline(),
): Promise<McpServer[]> {
  try {
    return await listEach(tools, context, connector, signal, newId, deadline);
  } finally {
    deadline.stop();
  }
}

async function listEach(
  tools: readonly Tool.Mcp[],
  context: readonly ResponseItem[],
  connector: McpConnector,
  signal: AbortSignal,
  newId: () => string,
  deadline: McpDeadline,
): Promise<McpServer[]> {
  const servers: McpServer[] = [];
  const bounded = AbortSignal.any([signal, deadline.signal]);
  for (const tool of tools) {
    const known = context.findLast(
      (i) => i.type === 'mcp_list_tools' && i.server_label === tool.server_label && !i.error,
    ) as McpListItem | undefined;
    let listed: McpToolInfo[];
    if (known) listed = known.tools;
    else {
      const session = await openOr424(connector, tool, signal, bounded, deadline);
      try {
        listed = await session.listTools().catch((err) => {
          if (signal.aborted) throw err;
          throw listError(tool.server_label, deadline.failure() ?? err, toolSecrets(tool));
        });
        // A server that echoes the request's token or headers in its listing gets them redacted.
        listed = redactJson(listed, toolSecrets(tool));
      } finally {
        await session.close();
      }
    }
    const allowed = listed.filter((info) => isAllowed(tool, info));
    const listing: McpListItem | null = known
      ? null
      : { id: newId(), type: 'mcp_list_tools', server_label: tool.server_label, tools: allowed };
    servers.push({ tool, tools: allowed, listing });
  }
  return servers;
}

async function openOr424(
  connector: McpConnector,
  tool: Tool.Mcp,
  signal: AbortSignal,
  bounded: AbortSignal,
  deadline: McpDeadline,
): Promise<McpSession> {
  try {
    return await connector.open(address(tool), bounded);
  } catch (err) {
    if (signal.aborted) throw err;
    throw listError(tool.server_label, deadline.failure() ?? err, toolSecrets(tool));
  }
}

/** The secrets a request gave for an `mcp` tool (its token, its headers' values), to redact from what the server sends. */
function toolSecrets(tool: Tool.Mcp): string[] {
  return secretsOf([tool.authorization, ...Object.values(tool.headers ?? {})]);
}

/** One response's deadline for listing its MCP servers ({@link MCP_LIST_DEADLINE_MS}): its signal, and the failure once past it. */
export interface McpDeadline {
  signal: AbortSignal;
  /** A `timeout` failure once the deadline has passed, else null. */
  failure(): McpFailure | null;
  /** The listing is over: its timer goes. */
  stop(): void;
}

/**
 * A deadline `ms` from now for all of a response's MCP listing (every server, every page).
 *
 * @example
 * const servers = await listMcpServers(tools, items, connector, signal, newId, mcpDeadline());
 */
export function mcpDeadline(ms: number = MCP_LIST_DEADLINE_MS): McpDeadline {
  // A timer of the page's own clock (not AbortSignal.timeout), cleared once the listing is over.
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new DOMException('MCP listing deadline', 'TimeoutError')), ms);
  return {
    signal: ac.signal,
    failure: () =>
      ac.signal.aborted
        ? new McpFailure(
            'timeout',
            0,
            `listing the response's MCP servers timed out: it took more than ${Math.round(ms / 1000)} s in all`,
          )
        : null,
    stop: () => clearTimeout(timer),
  };
}

function address(tool: Tool.Mcp) {
  return { url: tool.server_url ?? '', authorization: tool.authorization, headers: tool.headers };
}

/**
 * OpenAI's 424 for a server it could not list, with the likely cause added (a blocked fetch names
 * CORS, an HTTP error its status, a timeout its bound).
 */
export function listError(label: string, err: unknown, secrets: readonly string[] = []): ApiError {
  const why = err instanceof McpFailure ? err.message : err instanceof Error ? err.message : String(err);
  const cause = redactText(why, secrets);
  return new ApiError(
    424,
    'external_connector_error',
    'http_error',
    'tools',
    `Error retrieving tool list from MCP server: '${label}'. Http status code: 424 (Failed Dependency). Cause: ${cause}.`,
  );
}

/**
 * The model-facing name of every listed tool of `servers`, none of them one of `taken` (the
 * request's function names) nor each other's.
 */
export function mcpTargets(
  servers: readonly McpServer[],
  taken: ReadonlySet<string>,
): Map<string, McpTarget> {
  const names = new Set(taken);
  const targets = new Map<string, McpTarget>();
  for (const s of servers)
    for (const info of s.tools) {
      const name = offeredName(s.tool.server_label, info.name, names);
      names.add(name);
      targets.set(name, { label: s.tool.server_label, info });
    }
  return targets;
}

/** The run's open sessions, one per server, opened on the first call and closed when the run ends. */
export class McpSessions {
  private readonly open = new Map<string, Promise<McpSession>>();

  constructor(
    private readonly servers: readonly McpServer[],
    private readonly connector: McpConnector,
    private readonly signal: AbortSignal,
  ) {}

  /** The session for `label` (opened now if it is not yet). */
  session(label: string): Promise<McpSession> {
    let s = this.open.get(label);
    if (!s) {
      const server = this.servers.find((x) => x.tool.server_label === label);
      if (!server)
        return Promise.reject(
          new McpFailure('protocol', -32602, `No MCP server '${label}' in this request.`),
        );
      s = this.connector.open(address(server.tool), this.signal);
      // A failed open is retried by the next call rather than kept.
      s.catch(() => this.open.delete(label));
      this.open.set(label, s);
    }
    return s;
  }

  /** The secrets the request gave for `label`'s server, to redact from what it answers. */
  secrets(label: string): string[] {
    const server = this.servers.find((x) => x.tool.server_label === label);
    return server ? toolSecrets(server.tool) : [];
  }

  async closeAll(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((s) => s.then((x) => x.close()).catch(() => {})));
  }
}

/**
 * Runs one call, emitting its `mcp_call` item, and returns the tool result the model reads: the
 * call's text output (or what went wrong), marked as data from the server. A server error ends the
 * item `failed` with OpenAI's error object (`mcp_tool_execution_error`, `mcp_protocol_error`,
 * `http_error`), inside the response: only a stopped run throws.
 */
export async function runMcpCall(
  out: RunOutput,
  call: McpCallInput,
  sessions: McpSessions,
  signal: AbortSignal,
): Promise<string> {
  const item = {
    id: call.id,
    type: 'mcp_call' as const,
    status: 'in_progress',
    server_label: call.label,
    name: call.name,
    arguments: call.arguments,
    output: null as string | null,
    error: null as unknown,
    ...(call.approvalRequestId && { approval_request_id: call.approvalRequestId }),
  };
  await emitMcpItem(out, item, async () => {
    const args = parseArgs(call.arguments);
    if (args === null) {
      item.error = {
        type: 'mcp_protocol_error',
        code: -32602,
        message: 'The arguments must be a JSON object',
      };
      return 'failed';
    }
    // What the server answers is stored: the request's own secrets, echoed, are redacted from it.
    const secrets = sessions.secrets(call.label);
    try {
      const session = await sessions.session(call.label);
      const res = await session.callTool(call.name, args);
      if (res.isError) {
        item.error = { type: 'mcp_tool_execution_error', content: redactJson(res.content, secrets) };
        return 'failed';
      }
      item.output = capped(redactText(contentText(res.content), secrets));
      return 'completed';
    } catch (err) {
      if (signal.aborted) throw err;
      const f = err instanceof McpFailure ? err : new McpFailure('blocked', 0, String(err));
      const message = redactText(f.message, secrets);
      item.error =
        f.kind === 'protocol'
          ? { type: 'mcp_protocol_error', code: f.code, message }
          : { type: 'http_error', code: f.code, message };
      return 'failed';
    }
  });
  return pastMcpResult(item);
}

function parseArgs(args: string): Record<string, unknown> | null {
  if (args.trim() === '') return {};
  try {
    const v = JSON.parse(args) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Output past {@link MCP_MAX_OUTPUT_CHARS} is cut there. */
function capped(text: string): string {
  return text.length > MCP_MAX_OUTPUT_CHARS ? `${text.slice(0, MCP_MAX_OUTPUT_CHARS)}…` : text;
}

/**
 * Emits an `mcp_approval_request` for a call that waits for the user (its only events are
 * `output_item.added` and `.done`).
 */
export async function emitApprovalRequest(
  out: RunOutput,
  id: string,
  label: string,
  name: string,
  args: string,
): Promise<void> {
  const item: McpItem & { server_label: string; name: string } = {
    id,
    type: 'mcp_approval_request',
    server_label: label,
    name,
    arguments: args,
  };
  await emitMcpItem(out, item);
}
