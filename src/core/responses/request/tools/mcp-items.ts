import { z } from 'zod';

/**
 * The `mcp` tool's items as `input` may carry them (the input union of the `openai` package has all
 * four): the items of an earlier response sent back (the Agents SDK resends a run's items), and
 * `mcp_approval_response`, the user's answer to an `mcp_approval_request`.
 */

const listedTool = z.looseObject({
  name: z.string(),
  input_schema: z.unknown(),
  description: z.string().nullish(),
  annotations: z.unknown().optional(),
});

export const mcpListToolsItem = z.strictObject({
  type: z.literal('mcp_list_tools'),
  id: z.string().min(1),
  server_label: z.string(),
  tools: z.array(listedTool),
  error: z.string().nullish(),
});

const callError = z.union([
  z.strictObject({ type: z.literal('mcp_protocol_error'), code: z.number(), message: z.string() }),
  z.strictObject({ type: z.literal('mcp_tool_execution_error'), content: z.unknown() }),
  z.strictObject({ type: z.literal('http_error'), code: z.number(), message: z.string() }),
]);

export const mcpCallItem = z.strictObject({
  type: z.literal('mcp_call'),
  id: z.string().min(1),
  server_label: z.string(),
  name: z.string(),
  arguments: z.string(),
  output: z.string().nullish(),
  // openai 7 types `error` as an object; a string (older SDKs) is kept as it came.
  error: z.union([callError, z.string()]).nullish(),
  status: z.enum(['in_progress', 'completed', 'incomplete', 'calling', 'failed']).optional(),
  approval_request_id: z.string().nullish(),
});

export const mcpApprovalRequestItem = z.strictObject({
  type: z.literal('mcp_approval_request'),
  id: z.string().min(1),
  server_label: z.string(),
  name: z.string(),
  arguments: z.string(),
});

export const mcpApprovalResponseItem = z.strictObject({
  type: z.literal('mcp_approval_response'),
  approval_request_id: z.string().min(1),
  approve: z.boolean(),
  reason: z.string().nullish(),
  id: z.string().nullish(),
});
