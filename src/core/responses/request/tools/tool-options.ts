import type { CustomTool, FileSearchTool, FunctionTool, Tool } from 'openai/resources/responses/responses';
import { clip, invalidRequest } from '../../../../common/api-error';
import { customSpec } from '../../../../engine/custom-grammar';
import type { FunctionToolSpec, ToolChoiceSpec } from '../../../../engine/types';
import { parseOrThrow } from '../../../validation/params';
import { type CreateResponseBody, functionToolSchema } from '../create-schema';
import {
  type ClientTool,
  checkClientNames,
  clientTools,
  findClientTool,
  isClientToolType,
} from './client-tools';
import {
  type CodeInterpreterTool,
  PYTHON_NAME,
  PYTHON_SPEC,
  parseCodeInterpreterTool,
} from './code-interpreter-tool';
import { checkCustomNames, parseCustomTool } from './custom-tool';
import { FILE_SEARCH_NAME, FILE_SEARCH_SPEC, hostedNameTaken, parseFileSearchTool } from './hosted-tools';
import { checkUniqueLabels, parseMcpTool } from './mcp-tools';

/** The tools a request may carry: function tools, and the hosted tools that run locally. */
export type RequestTool =
  | FunctionTool
  | FileSearchTool
  | Tool.Mcp
  | CodeInterpreterTool
  | CustomTool
  | ClientTool;

/** The request's tools as echoed (secrets redacted), and its `mcp` entries as the run uses them. */
export interface ParsedTools {
  tools: RequestTool[];
  mcpRun: Tool.Mcp[];
}

/**
 * The request's `tools` as OpenAI echoes them (`strict` defaults to true; the optional fields the
 * request set come back as sent). Function tools, `file_search` and remote `mcp` run locally; any
 * other type is a 400 naming `tools[i].type`, and so are async tools and tools only programs may call.
 *
 * @example
 * parseTools(body).tools // → [{ type: 'function', name: 'f', description: null, parameters: null, strict: true }]
 */
export function parseTools(body: CreateResponseBody, origin: string | null = null): ParsedTools {
  const mcpRun: Tool.Mcp[] = [];
  const tools = (body.tools ?? []).map((raw, i): RequestTool => {
    if (raw.type === 'mcp') {
      const parsed = parseMcpTool(raw, i, origin);
      mcpRun.push(parsed.run);
      return parsed.echo;
    }
    if (raw.type === 'file_search') {
      if ((body.tools ?? []).findIndex((t) => t.type === 'file_search') !== i)
        throw invalidRequest(`tools[${i}].type`, 'Only one file_search tool may be given.', 'invalid_value');
      return parseFileSearchTool(raw, i);
    }
    if (raw.type === 'code_interpreter') {
      if ((body.tools ?? []).findIndex((t) => t.type === 'code_interpreter') !== i)
        throw invalidRequest(
          `tools[${i}].type`,
          'Only one code_interpreter tool may be given.',
          'invalid_value',
        );
      return parseCodeInterpreterTool(raw, i);
    }
    if (raw.type === 'custom') return parseCustomTool(raw, i);
    // shell (local), apply_patch, local_shell, namespace, client tool_search (issue 45).
    if (isClientToolType(raw.type)) return clientTools().parseClientToolAt(body.tools ?? [], i);
    if (raw.type !== 'function') {
      throw invalidRequest(
        `tools[${i}].type`,
        `Tool type '${clip(raw.type)}' is not supported by intab: only 'function', 'custom', 'file_search', 'mcp' and 'code_interpreter' tools run locally, and 'shell' (local), 'apply_patch', 'local_shell', 'namespace' and 'tool_search' (client) tools run in your application.`,
        'unsupported_value',
      );
    }
    return parseFunctionTool(raw, i);
  });
  if (tools.some((t) => t.type === 'file_search')) {
    const clash = tools.findIndex((t) => t.type === 'function' && t.name === FILE_SEARCH_NAME);
    if (clash >= 0) throw hostedNameTaken(FILE_SEARCH_NAME, clash);
  }
  if (tools.some((t) => t.type === 'code_interpreter')) {
    const clash = tools.findIndex((t) => t.type === 'function' && t.name === PYTHON_NAME);
    if (clash >= 0) throw hostedNameTaken(PYTHON_NAME, clash);
  }
  checkClientNames(tools as { type: string; name?: string }[]);
  checkUniqueLabels(tools);
  checkCustomNames(tools);
  return { tools, mcpRun };
}

function parseFunctionTool(raw: unknown, i: number): FunctionTool {
  const t = parseOrThrow(functionToolSchema, raw, ['tools', i]);
  if (t.async) {
    throw invalidRequest(
      `tools[${i}].async`,
      'Asynchronous tool calls are not supported by intab: a local response ends at its tool calls and takes their outputs on the next request.',
      'unsupported_value',
    );
  }
  if (t.allowed_callers && !t.allowed_callers.includes('direct')) {
    throw invalidRequest(
      `tools[${i}].allowed_callers`,
      "A tool only programs may call is not supported by intab: programmatic tool calling runs on OpenAI's platform. Include 'direct'.",
      'unsupported_value',
    );
  }
  return {
    type: 'function',
    name: t.name,
    description: t.description ?? null,
    parameters: t.parameters ?? null,
    strict: t.strict ?? true,
    ...(t.allowed_callers != null && { allowed_callers: t.allowed_callers }),
    ...(t.async !== undefined && { async: t.async }),
    ...(t.defer_loading !== undefined && { defer_loading: t.defer_loading }),
    ...(t.output_schema != null && { output_schema: t.output_schema }),
  };
}

/**
 * A tool choice: the engine's choice, the tools it may call, and for `mcp` entries which of a
 * server's tools (`name`; null: all of them). `forcedMcp`: `{type:'mcp'}` forced a server (and maybe
 * one tool), resolved to a name once the server is listed (`choice` is `required` until then).
 */
export interface ParsedToolChoice {
  choice: ToolChoiceSpec;
  allowed: RequestTool[];
  mcpNames?: Map<string, Set<string> | null>;
  forcedMcp?: { label: string; name: string | null };
}

/**
 * `tool_choice` as the engine's choice plus the tools it may call (`allowed_tools` applied).
 * `{type: 'file_search'}` forces a call to the hosted tool, as `{type: 'function', name}` forces a
 * function; `allowed_tools` may list `{type: 'file_search'}`. Other hosted choices are a 400.
 *
 * @example
 * parseToolChoice(body, tools) // → { choice: 'auto', allowed: tools }
 */
export function parseToolChoice(body: CreateResponseBody, tools: RequestTool[]): ParsedToolChoice {
  const tc = body.tool_choice ?? 'auto';
  if (typeof tc === 'string') {
    if (tc === 'required' && tools.length === 0) {
      throw invalidRequest(
        'tool_choice',
        "Tool choice 'required' must be specified with 'tools' parameter.",
        'invalid_value',
      );
    }
    return { choice: tc, allowed: tools };
  }
  if (tc.type === 'mcp') {
    const ref = tc as { server_label: string; name?: string | null };
    const tool = findTool(tools, { type: 'mcp', server_label: ref.server_label });
    if (!tool)
      throw invalidRequest(
        'tool_choice.server_label',
        `Tool choice MCP server '${clip(ref.server_label)}' not found in 'tools' parameter.`,
        'invalid_value',
      );
    const name = ref.name ?? null;
    return {
      choice: 'required',
      allowed: [tool],
      mcpNames: new Map([[ref.server_label, name === null ? null : new Set([name])]]),
      forcedMcp: { label: ref.server_label, name },
    };
  }
  if (
    tc.type === 'function' ||
    tc.type === 'custom' ||
    tc.type === 'file_search' ||
    tc.type === 'code_interpreter' ||
    tc.type === 'shell' ||
    tc.type === 'apply_patch'
  ) {
    const tool = findTool(tools, tc as { type: string; name?: string });
    if (!tool)
      throw invalidRequest(
        'tool_choice',
        `Tool choice '${clip((tc as { name?: string }).name ?? tc.type)}' not found in 'tools' parameter.`,
        'invalid_value',
      );
    return { choice: { name: specName(tool, tc as ToolRef) }, allowed: [tool] };
  }
  if (tc.type === 'allowed_tools') {
    const spec = tc as { mode: 'auto' | 'required'; tools: ToolRef[] };
    const mcpNames = new Map<string, Set<string> | null>();
    const allowed = spec.tools.map((ref, i) => {
      const tool = findTool(tools, ref);
      if (!tool)
        throw invalidRequest(
          `tool_choice.tools[${i}]`,
          `Tool '${clip(ref.name ?? ref.type)}' not found in 'tools' parameter.`,
          'invalid_value',
        );
      if (tool.type === 'mcp') addMcpName(mcpNames, tool.server_label, ref.name ?? null);
      return tool;
    });
    return { choice: spec.mode, allowed: [...new Set(allowed)], mcpNames };
  }
  throw invalidRequest(
    'tool_choice.type',
    `Tool choice type '${clip(tc.type)}' is not supported by intab: only function tools and file_search run locally.`,
    'unsupported_value',
  );
}

type ToolRef = { type: string; name?: string | null; server_label?: string; namespace?: string | null };

/** An `allowed_tools` entry for a server: its named tool joins the set, a nameless one allows all. */
function addMcpName(names: Map<string, Set<string> | null>, label: string, name: string | null): void {
  const had = names.get(label);
  if (had === null) return;
  names.set(label, name === null ? null : new Set([...(had ?? []), name]));
}

function findTool(tools: RequestTool[], ref: ToolRef): RequestTool | undefined {
  if (ref.type === 'file_search') return tools.find((t) => t.type === 'file_search');
  if (ref.type === 'mcp') return tools.find((t) => t.type === 'mcp' && t.server_label === ref.server_label);
  if (ref.type === 'code_interpreter') return tools.find((t) => t.type === 'code_interpreter');
  const own = tools.find(
    (t) => (t.type === 'function' || t.type === 'custom') && t.type === ref.type && t.name === ref.name,
  );
  return own ?? findClientTool(tools, ref);
}

/** The name the model calls `t` by (an `mcp` tool is never forced through here). */
function specName(t: RequestTool, ref: ToolRef): string {
  if (t.type === 'code_interpreter') return PYTHON_NAME;
  if (t.type === 'function' || t.type === 'custom') return t.name;
  if (t.type !== 'file_search' && t.type !== 'mcp') return clientTools().clientChoiceName(t, ref);
  return FILE_SEARCH_NAME;
}

/**
 * The functions the model is shown for `t`: one for most tools, one per function of a namespace.
 *
 * @example toSpecs({ type: 'apply_patch' }) // → [{ name: 'apply_patch', … }]
 */
export function toSpecs(t: Exclude<RequestTool, Tool.Mcp>): FunctionToolSpec[] {
  if (
    t.type === 'function' ||
    t.type === 'custom' ||
    t.type === 'file_search' ||
    t.type === 'code_interpreter'
  )
    return [toSpec(t)];
  return clientTools().clientSpecs(t);
}

/** @example toSpec(tool) // → { name, description, parameters, strict } (an `mcp` server's tools come from its listing) */
export function toSpec(
  t: FunctionTool | FileSearchTool | CodeInterpreterTool | CustomTool,
): FunctionToolSpec {
  if (t.type === 'custom') return customSpec(t);
  if (t.type === 'file_search') return FILE_SEARCH_SPEC;
  if (t.type === 'code_interpreter') return PYTHON_SPEC;
  return { name: t.name, description: t.description ?? null, parameters: t.parameters, strict: t.strict };
}
