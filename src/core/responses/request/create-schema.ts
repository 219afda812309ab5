import * as z from 'zod/mini';
import { isWellFormedId } from '../../http/ids';
import { jsonObjectSchema, metadataSchema } from '../../validation/params';
import { clientInputItems } from './tools/client-tools/client-items';
import { codeInterpreterCallItem } from './tools/code-interpreter-tool';
import { customToolItemSchemas } from './tools/custom-tool-items';
import {
  mcpApprovalRequestItem,
  mcpApprovalResponseItem,
  mcpCallItem,
  mcpListToolsItem,
} from './tools/mcp-items';

/**
 * The `POST /v1/responses` body, validated at the boundary. Strict objects, so an unknown parameter
 * is a 400 naming it (as OpenAI does); field shapes follow `ResponseCreateParams` in the `openai` package.
 * Values that parse but cannot be served locally (hosted tools, for one) are rejected after parsing.
 */

/**
 * The most `max_tool_calls` may ask for. OpenAI documents no upper bound; a local model could not
 * write this many calls in one reply within any context window it has, and the wllama grammar
 * spells the limit out as a repetition count, which llama.cpp caps (2000) and which costs grammar
 * size in proportion: past this a request is a 400 on `max_tool_calls`, never a giant grammar.
 */
export const MAX_TOOL_CALLS = 1000;

const nullish = <T extends z.ZodMiniType>(t: T) => z.nullish(t);

/** OpenAI checks item ids by prefix: `Expected an ID that begins with 'msg'.` */
const idWithPrefix = (prefix: string) =>
  z.string().check(z.refine((id) => id.startsWith(prefix), { message: `id_prefix:${prefix}` }));

/** Explicit prompt-cache breakpoints on content parts: accepted, no effect (local models keep no prompt cache). */
const promptCacheBreakpoint = nullish(
  z.strictObject({ mode: z.literal('explicit'), ttl: z.optional(z.enum(['30m', '12h'])) }),
);

const inputText = z.strictObject({
  type: z.literal('input_text'),
  text: z.string(),
  prompt_cache_breakpoint: promptCacheBreakpoint,
});
const inputImage = z.strictObject({
  type: z.literal('input_image'),
  image_url: nullish(z.string()),
  file_id: nullish(z.string()),
  detail: z.optional(z.enum(['low', 'high', 'auto', 'original'])),
  prompt_cache_breakpoint: promptCacheBreakpoint,
});
const inputFile = z.strictObject({
  type: z.literal('input_file'),
  file_data: z.optional(z.string()),
  file_id: nullish(z.string()),
  file_url: z.optional(z.string()),
  filename: z.optional(z.string()),
  detail: z.optional(z.enum(['auto', 'low', 'high'])),
  prompt_cache_breakpoint: promptCacheBreakpoint,
});
const outputText = z.strictObject({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.optional(z.array(z.looseObject({ type: z.string() }))),
  logprobs: z.optional(z.array(z.unknown())),
});
const refusal = z.strictObject({ type: z.literal('refusal'), refusal: z.string() });

export const contentPartSchema = z.discriminatedUnion('type', [
  inputText,
  inputImage,
  inputFile,
  outputText,
  refusal,
]);

const messageItem = z.strictObject({
  type: z.literal('message'),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(contentPartSchema)]),
  id: z.optional(idWithPrefix('msg')),
  status: z.optional(z.enum(['in_progress', 'completed', 'incomplete'])),
  phase: nullish(z.enum(['commentary', 'final_answer'])),
});

/** Who made a tool call: the model itself, or a program run by OpenAI's programmatic tool calling. */
const callerSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('direct') }),
  z.strictObject({ type: z.literal('program'), caller_id: z.string() }),
]);

const functionCallItem = z.strictObject({
  type: z.literal('function_call'),
  call_id: z.string().check(z.minLength(1)),
  name: z.string(),
  arguments: z.string(),
  id: z.optional(idWithPrefix('fc')),
  status: z.optional(z.enum(['in_progress', 'completed', 'incomplete'])),
  async: z.optional(z.boolean()),
  namespace: z.optional(z.string()),
  caller: nullish(callerSchema),
});

/** Since openai 7, `call_id` may be left out; the output then pairs with a pending call by `name`. */
const functionCallOutputItem = z.strictObject({
  type: z.literal('function_call_output'),
  call_id: nullish(z.string().check(z.minLength(1))),
  output: z.union([z.string(), z.array(z.discriminatedUnion('type', [inputText, inputImage, inputFile]))]),
  id: nullish(z.string()),
  status: nullish(z.enum(['in_progress', 'completed', 'incomplete'])),
  name: nullish(z.string()),
  namespace: nullish(z.string()),
  caller: nullish(callerSchema),
});

const customItems = customToolItemSchemas(
  z.discriminatedUnion('type', [inputText, inputImage, inputFile]),
  callerSchema,
);

const reasoningItem = z.strictObject({
  type: z.literal('reasoning'),
  id: z.optional(idWithPrefix('rs')),
  summary: z.array(z.strictObject({ type: z.literal('summary_text'), text: z.string() })),
  content: z.optional(z.array(z.strictObject({ type: z.literal('reasoning_text'), text: z.string() }))),
  encrypted_content: nullish(z.string()),
  status: z.optional(z.enum(['in_progress', 'completed', 'incomplete'])),
});

/** A `file_search_call` sent back as history (the Agents SDK resends a run's items): kept as it came. */
const fileSearchCallItem = z.strictObject({
  type: z.literal('file_search_call'),
  id: z.string().check(z.minLength(1)),
  queries: z.array(z.string()),
  status: z.enum(['in_progress', 'searching', 'completed', 'incomplete', 'failed']),
  results: nullish(
    z.array(
      z.strictObject({
        file_id: z.optional(z.string()),
        filename: z.optional(z.string()),
        score: z.optional(z.number()),
        text: z.optional(z.string()),
        attributes: nullish(z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))),
      }),
    ),
  ),
});

const itemReference = z.strictObject({
  type: z.literal('item_reference'),
  id: z.string().check(z.minLength(1)),
});

const compactionItem = z.strictObject({
  type: z.literal('compaction'),
  encrypted_content: z.string(),
  id: nullish(z.string()),
});

/** Easy messages may omit `type`; they are messages all the same. */
export const inputItemSchema = z.pipe(
  z.transform((v: unknown) =>
    isPlainObject(v) && !('type' in v) && 'role' in v ? { ...v, type: 'message' } : v,
  ),
  z.discriminatedUnion('type', [
    messageItem,
    functionCallItem,
    functionCallOutputItem,
    reasoningItem,
    itemReference,
    compactionItem,
    fileSearchCallItem,
    mcpListToolsItem,
    mcpCallItem,
    mcpApprovalRequestItem,
    mcpApprovalResponseItem,
    codeInterpreterCallItem,
    customItems.call,
    customItems.output,
    ...clientInputItems,
  ]),
);

export const functionToolSchema = z.strictObject({
  type: z.literal('function'),
  name: z.string().check(z.regex(/^[a-zA-Z0-9_-]{1,64}$/, { message: 'tool_name_pattern' })),
  description: nullish(z.string()),
  parameters: nullish(jsonObjectSchema),
  strict: nullish(z.boolean()),
  defer_loading: z.optional(z.boolean()),
  async: z.optional(z.boolean()),
  allowed_callers: nullish(z.array(z.enum(['direct', 'programmatic']))),
  output_schema: nullish(jsonObjectSchema),
});

/** The tool choices intab runs: the ones a response echoes. */
export const localToolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.strictObject({ type: z.literal('function'), name: z.string() }),
  z.strictObject({ type: z.literal('file_search') }),
  z.strictObject({ type: z.literal('custom'), name: z.string() }),
  // ToolChoiceShell and ToolChoiceApplyPatch: the client tools of issue 45.
  z.strictObject({ type: z.literal('shell') }),
  z.strictObject({ type: z.literal('apply_patch') }),
  z.strictObject({ type: z.literal('mcp'), server_label: z.string(), name: z.nullish(z.string()) }),
  z.strictObject({
    type: z.literal('allowed_tools'),
    mode: z.enum(['auto', 'required']),
    tools: z.array(
      z.looseObject({ type: z.string(), name: z.nullish(z.string()), server_label: z.optional(z.string()) }),
    ),
  }),
]);

// Hosted tool choices parse too, so that they are refused by name rather than as malformed.
const toolChoiceSchema = z.union([...localToolChoiceSchema.def.options, z.looseObject({ type: z.string() })]);

const formatSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text') }),
  z.strictObject({ type: z.literal('json_object') }),
  z.strictObject({
    type: z.literal('json_schema'),
    name: z.string().check(z.regex(/^[a-zA-Z0-9_-]{1,64}$/, { message: 'format_name_pattern' })),
    schema: jsonObjectSchema,
    description: z.optional(z.string()),
    strict: nullish(z.boolean()),
  }),
]);

export const INCLUDABLE = [
  'file_search_call.results',
  'web_search_call.results',
  'web_search_call.action.sources',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'code_interpreter_call.outputs',
  'reasoning.encrypted_content',
  'message.output_text.logprobs',
] as const;

export const createResponseSchema = z.strictObject({
  model: z.string().check(z.minLength(1)),
  input: z.optional(z.union([z.string(), z.array(z.unknown())])),
  instructions: nullish(z.string()),
  stream: nullish(z.boolean()),
  stream_options: nullish(z.strictObject({ include_obfuscation: z.optional(z.boolean()) })),
  store: nullish(z.boolean()),
  background: nullish(z.boolean()),
  previous_response_id: nullish(
    // OpenAI's id characters (`_` and `-` too), bounded; a well-formed id that is not stored is
    // `previous_response_not_found` (history.ts), in WebSocket mode as over HTTP.
    z.string().check(z.refine((id) => isWellFormedId(id, 'resp'), { message: 'id_prefix:resp' })),
  ),
  conversation: nullish(z.union([z.string(), z.strictObject({ id: z.string() })])),
  include: nullish(z.array(z.enum(INCLUDABLE))),
  tools: z.optional(z.array(z.looseObject({ type: z.string() }))),
  tool_choice: z.optional(toolChoiceSchema),
  parallel_tool_calls: nullish(z.boolean()),
  max_tool_calls: nullish(z.number().check(z.int()).check(z.minimum(1)).check(z.maximum(MAX_TOOL_CALLS))),
  max_output_tokens: nullish(z.number().check(z.int()).check(z.minimum(16))),
  temperature: nullish(z.number().check(z.minimum(0)).check(z.maximum(2))),
  top_p: nullish(z.number().check(z.minimum(0)).check(z.maximum(1))),
  top_logprobs: nullish(z.number().check(z.int()).check(z.minimum(0)).check(z.maximum(20))),
  truncation: nullish(z.enum(['auto', 'disabled'])),
  text: z.optional(
    z.strictObject({
      format: z.optional(formatSchema),
      verbosity: nullish(z.enum(['low', 'medium', 'high'])),
    }),
  ),
  reasoning: nullish(
    z.strictObject({
      effort: nullish(z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'])),
      summary: nullish(z.enum(['auto', 'concise', 'detailed'])),
      generate_summary: nullish(z.enum(['auto', 'concise', 'detailed'])),
      // The type leaves `mode` open (`(string & {}) | 'standard' | 'pro'`); the response says which ran.
      mode: z.optional(z.string()),
      context: nullish(z.enum(['auto', 'current_turn', 'all_turns'])),
    }),
  ),
  metadata: nullish(metadataSchema),
  user: z.optional(z.string()),
  safety_identifier: nullish(z.string().check(z.maxLength(128))),
  prompt_cache_key: nullish(z.string()),
  prompt_cache_retention: nullish(z.enum(['in_memory', '24h'])),
  service_tier: nullish(z.enum(['auto', 'default', 'flex', 'scale', 'priority', 'fast', 'ultrafast'])),
  prompt: nullish(z.looseObject({ id: z.string() })),
  context_management: nullish(
    z.array(
      z.strictObject({
        type: z.enum(['compaction']),
        compact_threshold: nullish(z.number().check(z.int()).check(z.minimum(1))),
      }),
    ),
  ),
  moderation: nullish(
    z.strictObject({
      model: z.string(),
      policy: nullish(
        z.strictObject({
          input: nullish(z.strictObject({ mode: z.enum(['score', 'block']) })),
          output: nullish(z.strictObject({ mode: z.enum(['score', 'block']) })),
        }),
      ),
    }),
  ),
  prompt_cache_options: z.optional(
    z.strictObject({
      mode: z.optional(z.enum(['implicit', 'explicit'])),
      ttl: z.optional(z.enum(['30m', '12h'])),
      prewarm: z.optional(z.boolean()),
      comparison_response_id: nullish(z.string()),
    }),
  ),
  access_programs: z.optional(
    z.strictObject({ cyber: z.optional(z.enum(['standard', 'daybreak_blue', 'daybreak_red'])) }),
  ),
  image: z.optional(
    z.strictObject({ context_compression: z.optional(z.enum(['auto', 'enabled', 'disabled'])) }),
  ),
});

export type CreateResponseBody = z.infer<typeof createResponseSchema>;
export type InputItemParam = z.infer<typeof inputItemSchema>;
export type ContentPartParam = z.infer<typeof contentPartSchema>;
export type FunctionToolParam = z.infer<typeof functionToolSchema>;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
