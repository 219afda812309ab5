import type { FunctionShellTool, NamespaceTool, ToolSearchTool } from 'openai/resources/responses/responses';
import type { FunctionToolSpec } from '../../../../../engine/types';
import {
  APPLY_PATCH_NAME,
  LOCAL_SHELL_NAME,
  namespacedName,
  SHELL_NAME,
  TOOL_SEARCH_NAME,
} from './client-tool-names';
import type { ClientTool } from './client-tool-parse';

/**
 * The client tools as the model sees them: each a function with a fixed, strict schema in its
 * family's native tool section (so the grammar holds every call to it), and the name the model
 * calls it by. A namespace's functions are shown as `namespace.name`: function names cannot hold a
 * `.`, so no plain function can take such a name, and the model reads which group a tool is in.
 */

const positiveInt = { type: 'integer', minimum: 1 };

const SHELL_SPEC: FunctionToolSpec = {
  name: SHELL_NAME,
  description:
    "Run shell commands on the user's computer, in order, and get each one's stdout, stderr and exit code. Give the commands as separate strings; timeout_ms and max_output_length bound each command's run and output.",
  parameters: {
    type: 'object',
    properties: {
      commands: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
      timeout_ms: positiveInt,
      max_output_length: positiveInt,
    },
    required: ['commands'],
    additionalProperties: false,
  },
  strict: true,
};

/** OpenAI's V4A diff format, as its apply_patch guide describes it to models. */
const APPLY_PATCH_SPEC: FunctionToolSpec = {
  name: APPLY_PATCH_NAME,
  description: [
    "Create, update or delete one file in the user's workspace.",
    "type: 'create_file', 'update_file' or 'delete_file'. path: the file's path, relative to the workspace.",
    "diff (not for delete_file), in the V4A diff format: for create_file, every line of the new file prefixed with '+'.",
    "For update_file, one or more hunks: a line '@@' (or '@@ <a line before the change, such as a def or class line>'),",
    "then the lines around the change: ' ' before a line kept, '-' before a line removed, '+' before a line added.",
    'Give about three lines of context before and after each change, unchanged.',
  ].join(' '),
  parameters: {
    type: 'object',
    properties: {
      type: { type: 'string', enum: ['create_file', 'update_file', 'delete_file'] },
      path: { type: 'string', minLength: 1 },
      diff: { type: 'string' },
    },
    required: ['type', 'path'],
    additionalProperties: false,
  },
  strict: true,
};

const LOCAL_SHELL_SPEC: FunctionToolSpec = {
  name: LOCAL_SHELL_NAME,
  description:
    "Run one command on the user's computer and get its output. command: the program and its arguments, one string each. env: extra environment variables; working_directory, user and timeout_ms are optional.",
  parameters: {
    type: 'object',
    properties: {
      command: { type: 'array', items: { type: 'string' }, minItems: 1 },
      env: { type: 'object', additionalProperties: { type: 'string' } },
      timeout_ms: positiveInt,
      working_directory: { type: 'string' },
      user: { type: 'string' },
    },
    required: ['command'],
    additionalProperties: false,
  },
  strict: true,
};

/** The search a client tool_search gets when the request gives it no parameters of its own. */
const DEFAULT_TOOL_SEARCH_PARAMETERS = {
  type: 'object',
  properties: { query: { type: 'string', description: 'What the tools to load should do.' } },
  required: ['query'],
  additionalProperties: false,
};

function toolSearchSpec(t: ToolSearchTool): FunctionToolSpec {
  return {
    name: TOOL_SEARCH_NAME,
    description:
      t.description ??
      'Search for more tools to use. The tools found become available to call in the next turn.',
    parameters:
      (t.parameters as Record<string, unknown> | null | undefined) ?? DEFAULT_TOOL_SEARCH_PARAMETERS,
    strict: t.parameters == null,
  };
}

function shellSpec(t: FunctionShellTool): FunctionToolSpec {
  const skills = t.environment?.type === 'local' ? (t.environment.skills ?? []) : [];
  if (skills.length === 0) return SHELL_SPEC;
  const list = skills.map((s) => `${s.name} (${s.path}): ${s.description}`).join('; ');
  return { ...SHELL_SPEC, description: `${SHELL_SPEC.description} Skills installed: ${list}.` };
}

function namespaceSpecs(t: NamespaceTool): FunctionToolSpec[] {
  return t.tools.map((f) => {
    const fn = f as NamespaceTool.Function;
    const about = fn.description ? ` ${fn.description}` : '';
    return {
      name: namespacedName(t.name, fn.name),
      description: `(${t.name}: ${t.description})${about}`,
      parameters: (fn.parameters as Record<string, unknown> | null | undefined) ?? null,
      strict: fn.strict ?? true,
    };
  });
}

/**
 * The functions the model is shown for a client tool (a namespace shows one per function).
 *
 * @example
 * clientSpecs({ type: 'apply_patch' }) // → [{ name: 'apply_patch', parameters: {…}, strict: true }]
 */
export function clientSpecs(t: ClientTool): FunctionToolSpec[] {
  switch (t.type) {
    case 'shell':
      return [shellSpec(t)];
    case 'apply_patch':
      return [APPLY_PATCH_SPEC];
    case 'local_shell':
      return [LOCAL_SHELL_SPEC];
    case 'tool_search':
      return [toolSearchSpec(t)];
    case 'namespace':
      return namespaceSpecs(t);
  }
}
