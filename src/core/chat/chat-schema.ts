import * as z from 'zod/mini';
import { jsonObjectSchema, metadataSchema } from '../validation/params';

/**
 * The `POST /v1/chat/completions` body, validated at the boundary as the Responses body is: strict
 * objects, so an unknown parameter is a 400 naming it; shapes follow `ChatCompletionCreateParams`
 * in the `openai` package. Fields that parse but ask for what a local model cannot do (audio, n > 1,
 * web search…) are refused after parsing, in `checkChatOptions`, each with a 400 on its param.
 */

const nullish = <T extends z.ZodMiniType>(t: T) => z.nullish(t);

const cacheBreakpoint = z.optional(
  z.strictObject({ mode: z.literal('explicit'), ttl: z.optional(z.enum(['30m', '12h'])) }),
);

const textPart = z.strictObject({
  type: z.literal('text'),
  text: z.string(),
  prompt_cache_breakpoint: cacheBreakpoint,
});
const refusalPart = z.strictObject({ type: z.literal('refusal'), refusal: z.string() });
const imagePart = z.strictObject({
  type: z.literal('image_url'),
  image_url: z.strictObject({
    url: z.string(),
    detail: z.optional(z.enum(['auto', 'low', 'high', 'original'])),
  }),
  prompt_cache_breakpoint: cacheBreakpoint,
});
const audioPart = z.strictObject({
  type: z.literal('input_audio'),
  input_audio: z.strictObject({ data: z.string(), format: z.enum(['wav', 'mp3']) }),
  prompt_cache_breakpoint: cacheBreakpoint,
});
const filePart = z.strictObject({
  type: z.literal('file'),
  file: z.strictObject({
    file_data: z.optional(z.string()),
    file_id: z.optional(z.string()),
    filename: z.optional(z.string()),
  }),
  prompt_cache_breakpoint: cacheBreakpoint,
});

const textContent = z.union([z.string(), z.array(textPart)]);

const toolCallSchema = z.discriminatedUnion('type', [
  z.strictObject({
    id: z.string(),
    type: z.literal('function'),
    function: z.strictObject({ name: z.string(), arguments: z.string() }),
  }),
  z.strictObject({
    id: z.string(),
    type: z.literal('custom'),
    custom: z.strictObject({ name: z.string(), input: z.string() }),
  }),
]);

const chatMessageSchema = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('system'), content: textContent, name: z.optional(z.string()) }),
  z.strictObject({ role: z.literal('developer'), content: textContent, name: z.optional(z.string()) }),
  z.strictObject({
    role: z.literal('user'),
    content: z.union([
      z.string(),
      z.array(z.discriminatedUnion('type', [textPart, imagePart, audioPart, filePart])),
    ]),
    name: z.optional(z.string()),
  }),
  z.strictObject({
    role: z.literal('assistant'),
    content: nullish(z.union([z.string(), z.array(z.discriminatedUnion('type', [textPart, refusalPart]))])),
    refusal: nullish(z.string()),
    tool_calls: z.optional(z.array(toolCallSchema)),
    name: z.optional(z.string()),
    audio: nullish(z.strictObject({ id: z.string() })),
    function_call: nullish(z.strictObject({ name: z.string(), arguments: z.string() })),
    // A returned `message` sent back as it is carries these; they say nothing to the model.
    annotations: z.optional(z.array(z.unknown())),
  }),
  z.strictObject({ role: z.literal('tool'), content: textContent, tool_call_id: z.string() }),
  z.strictObject({ role: z.literal('function'), content: z.nullable(z.string()), name: z.string() }),
]);

const toolName = z.string().check(z.regex(/^[a-zA-Z0-9_-]{1,64}$/, { message: 'tool_name_pattern' }));

/** Tools parse loosely by `type`, so that a custom tool is refused by name rather than as malformed. */
export const chatFunctionToolSchema = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({
    name: toolName,
    description: z.optional(z.string()),
    parameters: z.optional(jsonObjectSchema),
    strict: nullish(z.boolean()),
  }),
});

const namedFunction = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({ name: z.string() }),
});

const toolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  namedFunction,
  z.strictObject({
    type: z.literal('allowed_tools'),
    allowed_tools: z.strictObject({
      mode: z.enum(['auto', 'required']),
      tools: z.array(z.looseObject({ type: z.string() })),
    }),
  }),
  z.strictObject({ type: z.literal('custom'), custom: z.strictObject({ name: z.string() }) }),
]);

const responseFormatSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text') }),
  z.strictObject({ type: z.literal('json_object') }),
  z.strictObject({
    type: z.literal('json_schema'),
    json_schema: z.strictObject({
      name: z.string().check(z.regex(/^[a-zA-Z0-9_-]{1,64}$/, { message: 'format_name_pattern' })),
      description: z.optional(z.string()),
      schema: z.optional(jsonObjectSchema),
      strict: nullish(z.boolean()),
    }),
  }),
]);

const penalty = nullish(z.number().check(z.minimum(-2)).check(z.maximum(2)));

export const chatCompletionSchema = z.strictObject({
  model: z.string().check(z.minLength(1)),
  messages: z.array(chatMessageSchema).check(z.minLength(1)),
  stream: nullish(z.boolean()),
  stream_options: nullish(
    z.strictObject({ include_usage: z.optional(z.boolean()), include_obfuscation: z.optional(z.boolean()) }),
  ),
  tools: z.optional(z.array(z.looseObject({ type: z.string() }))),
  tool_choice: z.optional(toolChoiceSchema),
  parallel_tool_calls: z.optional(z.boolean()),
  response_format: z.optional(responseFormatSchema),
  max_tokens: nullish(z.number().check(z.int()).check(z.minimum(1))),
  max_completion_tokens: nullish(z.number().check(z.int()).check(z.minimum(1))),
  temperature: nullish(z.number().check(z.minimum(0)).check(z.maximum(2))),
  top_p: nullish(z.number().check(z.minimum(0)).check(z.maximum(1))),
  logprobs: nullish(z.boolean()),
  top_logprobs: nullish(z.number().check(z.int()).check(z.minimum(0)).check(z.maximum(20))),
  reasoning_effort: nullish(z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'])),
  // One stop string is a list of one, so that a list too long gets the array's own error.
  stop: z.pipe(
    z.transform((v: unknown) => (typeof v === 'string' ? [v] : v)),
    nullish(z.array(z.string()).check(z.maxLength(4))),
  ),
  n: nullish(z.number().check(z.int()).check(z.minimum(1)).check(z.maximum(128))),
  // Accepted, and without effect on a local model (see README, "Chat Completions").
  frequency_penalty: penalty,
  presence_penalty: penalty,
  seed: nullish(z.number().check(z.int())),
  user: z.optional(z.string()),
  safety_identifier: nullish(z.string().check(z.maxLength(128))),
  metadata: nullish(metadataSchema),
  store: nullish(z.boolean()),
  service_tier: nullish(z.enum(['auto', 'default', 'flex', 'scale', 'priority', 'fast'])),
  verbosity: nullish(z.enum(['low', 'medium', 'high'])),
  prompt_cache_key: nullish(z.string()),
  prompt_cache_retention: nullish(z.enum(['in_memory', '24h'])),
  prompt_cache_options: z.optional(
    z.strictObject({ mode: z.optional(z.enum(['implicit', 'explicit'])), ttl: z.optional(z.enum(['30m'])) }),
  ),
  prediction: nullish(z.strictObject({ type: z.literal('content'), content: textContent })),
  // Parsed so that each is refused by name in checkChatOptions.
  audio: nullish(z.looseObject({})),
  modalities: nullish(z.array(z.enum(['text', 'audio']))),
  web_search_options: z.optional(z.looseObject({})),
  functions: z.optional(z.array(z.unknown())),
  function_call: z.optional(z.union([z.string(), z.looseObject({})])),
  logit_bias: nullish(z.record(z.string(), z.number())),
  moderation: nullish(z.looseObject({})),
});

export type ChatCompletionBody = z.infer<typeof chatCompletionSchema>;
export type ChatMessageParam = ChatCompletionBody['messages'][number];
export type ChatFunctionTool = z.infer<typeof chatFunctionToolSchema>;
