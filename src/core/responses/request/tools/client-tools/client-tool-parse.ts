import type {
  ApplyPatchTool,
  FunctionShellTool,
  NamespaceTool,
  Tool,
  ToolSearchTool,
} from 'openai/resources/responses/responses';
import * as z from 'zod/mini';
import { clip, invalidRequest } from '../../../../../common/api-error';
import { jsonObjectSchema, parseOrThrow } from '../../../../validation/params';

/**
 * The client-executed tools (issue 45): `shell` with a local environment, `apply_patch`,
 * `local_shell`, `namespace` groups of functions and `tool_search` with `execution: 'client'`.
 * The model calls each like a function (client-tool-specs.ts gives its fixed schema); the call
 * comes back as the typed item the application runs, and its output returns as an input item.
 * Here: each request entry checked as OpenAI checks it, and echoed as it was sent.
 */

/** The client tools, as the `openai` package types them. */
export type ClientTool =
  | FunctionShellTool
  | ApplyPatchTool
  | Tool.LocalShell
  | NamespaceTool
  | ToolSearchTool;

/** The most functions one namespace may group: each becomes a declaration in the prompt. */
export const MAX_NAMESPACE_TOOLS = 128;

const callers = z.nullish(z.array(z.enum(['direct', 'programmatic'])));
const toolName = z.string().check(z.regex(/^[a-zA-Z0-9_-]{1,64}$/, { message: 'tool_name_pattern' }));

const localSkill = z.strictObject({ name: z.string(), description: z.string(), path: z.string() });
const shellSchema = z.strictObject({
  type: z.literal('shell'),
  allowed_callers: callers,
  // Container environments are refused by name below, so they parse loosely here.
  environment: z.nullish(
    z.union([
      z.strictObject({ type: z.literal('local'), skills: z.optional(z.array(localSkill)) }),
      z.looseObject({ type: z.enum(['container_auto', 'container_reference']) }),
    ]),
  ),
});
const applyPatchSchema = z.strictObject({ type: z.literal('apply_patch'), allowed_callers: callers });
const localShellSchema = z.strictObject({ type: z.literal('local_shell') });
const toolSearchSchema = z.strictObject({
  type: z.literal('tool_search'),
  description: z.nullish(z.string()),
  execution: z.optional(z.enum(['server', 'client'])),
  parameters: z.nullish(jsonObjectSchema),
});
const namespaceFunction = z.strictObject({
  type: z.literal('function'),
  name: toolName,
  description: z.nullish(z.string()),
  parameters: z.nullish(jsonObjectSchema),
  strict: z.nullish(z.boolean()),
  allowed_callers: callers,
  async: z.optional(z.boolean()),
  defer_loading: z.optional(z.boolean()),
  output_schema: z.nullish(jsonObjectSchema),
});
const namespaceSchema = z.strictObject({
  type: z.literal('namespace'),
  name: toolName,
  description: z.string(),
  tools: z.array(z.looseObject({ type: z.string() })),
});

/**
 * Checks a client tool entry (`tools[i]`) and returns it as a response echoes it. What runs only
 * on OpenAI's platform is a 400 that says so: a hosted shell container, server-side tool search,
 * calls only programs may make.
 *
 * @example
 * parseClientTool({ type: 'shell', environment: { type: 'local' } }, 0) // → the same entry
 */
export function parseClientTool(raw: { type: string }, i: number): ClientTool {
  switch (raw.type) {
    case 'shell': {
      const t = parseOrThrow(shellSchema, raw, ['tools', i]);
      refuseProgrammatic(t.allowed_callers, `tools[${i}].allowed_callers`);
      if (t.environment && t.environment.type !== 'local')
        throw invalidRequest(
          `tools[${i}].environment.type`,
          `Shell environment '${clip(t.environment.type)}' is not supported by intab: hosted shell containers run on OpenAI's platform. Use {type: 'local'} and run the commands in your application.`,
          'unsupported_value',
        );
      return t as FunctionShellTool;
    }
    case 'apply_patch': {
      const t = parseOrThrow(applyPatchSchema, raw, ['tools', i]);
      refuseProgrammatic(t.allowed_callers, `tools[${i}].allowed_callers`);
      return t as ApplyPatchTool;
    }
    case 'local_shell':
      return parseOrThrow(localShellSchema, raw, ['tools', i]);
    case 'tool_search': {
      const t = parseOrThrow(toolSearchSchema, raw, ['tools', i]);
      if (t.execution !== 'client')
        throw invalidRequest(
          `tools[${i}].execution`,
          "Server-executed tool search is not supported by intab: it runs on OpenAI's platform. Set execution: 'client' and answer each tool_search_call with a tool_search_output.",
          'unsupported_value',
        );
      return t as ToolSearchTool;
    }
    default:
      return parseNamespace(raw, i);
  }
}

function parseNamespace(raw: unknown, i: number): NamespaceTool {
  const t = parseOrThrow(namespaceSchema, raw, ['tools', i]);
  if (t.tools.length === 0)
    throw invalidRequest(`tools[${i}].tools`, 'A namespace needs at least one tool.', 'empty_array');
  if (t.tools.length > MAX_NAMESPACE_TOOLS)
    throw invalidRequest(
      `tools[${i}].tools`,
      `A namespace may group at most ${MAX_NAMESPACE_TOOLS} tools, got ${t.tools.length}.`,
      'array_above_max_length',
    );
  const seen = new Set<string>();
  const tools = t.tools.map((inner, k) => {
    const at = `tools[${i}].tools[${k}]`;
    if (inner.type !== 'function')
      throw invalidRequest(
        `${at}.type`,
        `Tool type '${clip(inner.type)}' is not supported inside a namespace by intab: only 'function' tools are grouped here.`,
        'unsupported_value',
      );
    const f = parseOrThrow(namespaceFunction, inner, ['tools', i, 'tools', k]);
    refuseProgrammatic(f.allowed_callers, `${at}.allowed_callers`);
    if (f.async)
      throw invalidRequest(
        `${at}.async`,
        'Asynchronous tool calls are not supported by intab: a local response ends at its tool calls and takes their outputs on the next request.',
        'unsupported_value',
      );
    if (seen.has(f.name))
      throw invalidRequest(
        `${at}.name`,
        `Duplicate tool name '${clip(f.name)}' in namespace '${clip(t.name)}'.`,
        'invalid_value',
      );
    seen.add(f.name);
    return { ...f, strict: f.strict ?? true };
  });
  return { ...t, tools } as NamespaceTool;
}

function refuseProgrammatic(allowed: readonly string[] | null | undefined, param: string): void {
  if (allowed && !allowed.includes('direct'))
    throw invalidRequest(
      param,
      "A tool only programs may call is not supported by intab: programmatic tool calling runs on OpenAI's platform. Include 'direct'.",
      'unsupported_value',
    );
}
