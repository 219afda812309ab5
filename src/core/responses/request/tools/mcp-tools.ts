import type { Tool } from 'openai/resources/responses/responses';
import * as z from 'zod/mini';
import { clip, invalidRequest } from '../../../../common/api-error';
import { serverUrlProblem } from '../../../hosted/mcp-policy';
import { parseOrThrow } from '../../../validation/params';

/**
 * The request's `{type:'mcp', …}` entries: checked (each bad value a 400 on its `param`), and split
 * in two. The entry the run uses keeps `authorization` and `headers`; the entry the response echoes
 * and the store keeps has their values redacted, so a secret never reaches IndexedDB or a reply.
 */

/** What a redacted secret reads as in an echoed tool. */
export const REDACTED = '[redacted]';

const filterSchema = z.strictObject({
  tool_names: z.optional(z.array(z.string())),
  read_only: z.optional(z.boolean()),
});

const mcpToolSchema = z.strictObject({
  type: z.literal('mcp'),
  server_label: z.string().check(z.regex(/^[a-zA-Z0-9_-]{1,64}$/, { message: 'server_label_pattern' })),
  server_url: z.optional(z.string()),
  connector_id: z.optional(z.string()),
  tunnel_id: z.optional(z.string()),
  authorization: z.optional(z.string()),
  headers: z.nullish(z.record(z.string(), z.string())),
  server_description: z.optional(z.string()),
  allowed_tools: z.nullish(z.union([z.array(z.string()), filterSchema])),
  require_approval: z.nullish(
    z.union([
      z.enum(['always', 'never']),
      z.strictObject({ always: z.optional(filterSchema), never: z.optional(filterSchema) }),
    ]),
  ),
  defer_loading: z.optional(z.boolean()),
  allowed_callers: z.nullish(z.array(z.enum(['direct', 'programmatic']))),
});

/** A checked `mcp` entry: `run` keeps its secrets, `echo` has them redacted. */
export interface ParsedMcpTool {
  run: Tool.Mcp;
  echo: Tool.Mcp;
}

/**
 * Checks `tools[i]` of type `mcp`. `connector_id` and `tunnel_id` need OpenAI's infrastructure: a
 * 400 `unsupported_value` on that param. `server_url` must be reachable from a tab (https, or http
 * on localhost) and not intab's own origin.
 *
 * @example
 * parseMcpTool({ type: 'mcp', server_label: 'docs', server_url: 'https://mcp.example/mcp' }, 0, null)
 */
export function parseMcpTool(raw: unknown, i: number, origin: string | null): ParsedMcpTool {
  const t = parseOrThrow(mcpToolSchema, raw, ['tools', i]);
  for (const key of ['connector_id', 'tunnel_id'] as const)
    if (t[key] !== undefined)
      throw invalidRequest(
        `tools[${i}].${key}`,
        `'${key}' is not supported by intab: connectors and tunnels run on OpenAI's infrastructure. Give the server's server_url instead.`,
        'unsupported_value',
      );
  if (t.server_url === undefined)
    throw invalidRequest(
      `tools[${i}].server_url`,
      'An mcp tool needs a server_url.',
      'missing_required_parameter',
    );
  const problem = serverUrlProblem(t.server_url, origin);
  if (problem) throw invalidRequest(`tools[${i}].server_url`, problem, 'invalid_value');
  if (t.allowed_callers && !t.allowed_callers.includes('direct'))
    throw invalidRequest(
      `tools[${i}].allowed_callers`,
      "A tool only programs may call is not supported by intab: programmatic tool calling runs on OpenAI's platform. Include 'direct'.",
      'unsupported_value',
    );
  const run = t as Tool.Mcp;
  const echo: Tool.Mcp = { ...run };
  if (run.authorization !== undefined) echo.authorization = REDACTED;
  if (run.headers) echo.headers = Object.fromEntries(Object.keys(run.headers).map((k) => [k, REDACTED]));
  return { run, echo };
}

/** Two `mcp` entries with one label would make calls ambiguous: a 400 on the second. */
export function checkUniqueLabels(tools: readonly { type: string; server_label?: string }[]): void {
  const seen = new Set<string>();
  tools.forEach((t, i) => {
    if (t.type !== 'mcp' || t.server_label === undefined) return;
    if (seen.has(t.server_label))
      throw invalidRequest(
        `tools[${i}].server_label`,
        `Duplicate server_label '${clip(t.server_label)}': each mcp tool needs its own label.`,
        'invalid_value',
      );
    seen.add(t.server_label);
  });
}
