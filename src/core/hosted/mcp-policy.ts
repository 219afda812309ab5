import type { Tool } from 'openai/resources/responses/responses';

/**
 * The rules of the `mcp` tool that need no network: which listed tools a request offers
 * (`allowed_tools`), which calls wait for the user's approval (`require_approval`), and which
 * server URLs a tab may reach at all.
 */

/** One tool as `mcp_list_tools.tools[]` carries it. */
export interface McpToolInfo {
  name: string;
  input_schema: unknown;
  description?: string | null;
  annotations?: unknown;
}

/** `{tool_names?, read_only?}`, the filter shape of `allowed_tools` and `require_approval`. */
export interface McpToolFilter {
  tool_names?: string[];
  read_only?: boolean;
}

/** Whether the server annotated the tool `readOnlyHint: true`. */
export function isReadOnly(info: McpToolInfo): boolean {
  return (info.annotations as { readOnlyHint?: unknown } | null | undefined)?.readOnlyHint === true;
}

/**
 * Whether `info` matches `filter`: every condition the filter states holds (`tool_names` lists the
 * tool; `read_only` equals its `readOnlyHint`). A filter that states nothing matches every tool.
 *
 * @example
 * matchesFilter({ read_only: true }, { name: 'echo', input_schema: {}, annotations: { readOnlyHint: true } }) // → true
 */
export function matchesFilter(filter: McpToolFilter, info: McpToolInfo): boolean {
  if (filter.tool_names && !filter.tool_names.includes(info.name)) return false;
  if (filter.read_only !== undefined && filter.read_only !== isReadOnly(info)) return false;
  return true;
}

/**
 * Whether the request's `allowed_tools` lets the model see `info`: absent or null allows every
 * tool, a list names them, a filter object is {@link matchesFilter}.
 */
export function isAllowed(tool: Pick<Tool.Mcp, 'allowed_tools'>, info: McpToolInfo): boolean {
  const allowed = tool.allowed_tools;
  if (allowed == null) return true;
  if (Array.isArray(allowed)) return allowed.includes(info.name);
  return matchesFilter(allowed, info);
}

/**
 * Whether a call to `info` waits for the user's approval. `never` and `always` say so for every
 * tool; a filter object skips approval for tools its `never` matches, asks for those its `always`
 * matches, and (like an absent `require_approval`, OpenAI's documented default) asks for the rest.
 * A filter with no condition matches nothing here: `{never: {}}` must not waive approval for all.
 *
 * @example
 * needsApproval({ require_approval: { never: { tool_names: ['echo'] } } }, echoInfo) // → false
 */
export function needsApproval(tool: Pick<Tool.Mcp, 'require_approval'>, info: McpToolInfo): boolean {
  const rule = tool.require_approval;
  if (rule === 'never') return false;
  if (rule == null || rule === 'always') return true;
  const states = (f: McpToolFilter | undefined): f is McpToolFilter =>
    f !== undefined && (f.tool_names !== undefined || f.read_only !== undefined);
  if (states(rule.never) && matchesFilter(rule.never, info)) return false;
  return true;
}

/** Why a `server_url` cannot be reached from a tab, or null when it can. */
export function serverUrlProblem(raw: string, appOrigin: string | null): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `'${raw.slice(0, 200)}' is not a URL.`;
  }
  if (appOrigin !== null && url.origin === appOrigin) return "An MCP server may not be intab's own origin.";
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return null;
  return 'An MCP server URL must be https: (or http: on localhost): a tab cannot call other http: servers (mixed content).';
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host.endsWith('.localhost');
}

const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The name the model calls a listed tool by: the tool's own name when it is a valid function name
 * no other tool of the request takes, else `<label>__<name>` made valid (characters outside
 * `[a-zA-Z0-9_-]` become `_`, cut to 64), numbered on until it is free.
 *
 * @example
 * offeredName('srv', 'echo', new Set()) // → 'echo'
 * offeredName('srv', 'echo', new Set(['echo'])) // → 'srv__echo'
 */
export function offeredName(label: string, name: string, taken: ReadonlySet<string>): string {
  if (NAME_PATTERN.test(name) && !taken.has(name)) return name;
  const base = `${label}__${name}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 60);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`;
}
