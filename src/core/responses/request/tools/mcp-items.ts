import * as z from 'zod/mini';

/**
 * The `mcp` tool's items as `input` may carry them (the input union of the `openai` package has all
 * four): the items of an earlier response sent back (the Agents SDK resends a run's items), and
 * `mcp_approval_response`, the user's answer to an `mcp_approval_request`.
 */

const listedTool = z.looseObject({
  name: z.string(),
  input_schema: z.unknown(),
  description: z.nullish(z.string()),
  annotations: z.optional(z.unknown()),
});

export const mcpListToolsItem = z.strictObject({
  type: z.literal('mcp_list_tools'),
  id: z.string().check(z.minLength(1)),
  server_label: z.string(),
  tools: z.array(listedTool),
  error: z.nullish(z.string()),
});

const callError = z.union([
  z.strictObject({ type: z.literal('mcp_protocol_error'), code: z.number(), message: z.string() }),
  z.strictObject({ type: z.literal('mcp_tool_execution_error'), content: z.unknown() }),
  z.strictObject({ type: z.literal('http_error'), code: z.number(), message: z.string() }),
]);

export const mcpCallItem = z.strictObject({
  type: z.literal('mcp_call'),
  id: z.string().check(z.minLength(1)),
  server_label: z.string(),
  name: z.string(),
  arguments: z.string(),
  output: z.nullish(z.string()),
  // openai 7 types `error` as an object; a string (older SDKs) is kept as it came.
  error: z.nullish(z.union([callError, z.string()])),
  status: z.optional(z.enum(['in_progress', 'completed', 'incomplete', 'calling', 'failed'])),
  approval_request_id: z.nullish(z.string()),
});

export const mcpApprovalRequestItem = z.strictObject({
  type: z.literal('mcp_approval_request'),
  id: z.string().check(z.minLength(1)),
  server_label: z.string(),
  name: z.string(),
  arguments: z.string(),
});

export const mcpApprovalResponseItem = z.strictObject({
  type: z.literal('mcp_approval_response'),
  approval_request_id: z.string().check(z.minLength(1)),
  approve: z.boolean(),
  reason: z.nullish(z.string()),
  id: z.nullish(z.string()),
});
