import type { Response as ApiResponse, ResponseUsage, Tool } from 'openai/resources/responses/responses';
import { type CreateResponseBody, localToolChoiceSchema } from './create-schema';

/**
 * The wire response object. `output_text` is a convenience the `openai` SDK adds on the client;
 * OpenAI does not send it, so neither do we. The penalties are on the wire (and in the spec) but
 * not in the SDK's type, and OpenAI sends `usage` and `user` as null where the type leaves them out.
 */
export type ResponseObject = Omit<ApiResponse, 'output_text' | 'usage' | 'user'> & {
  presence_penalty: number;
  frequency_penalty: number;
  max_tool_calls: number | null;
  store: boolean;
  usage: ResponseUsage | null;
  user: string | null;
};

/**
 * Builds the response object for a validated create request, with every field OpenAI sends and
 * OpenAI's defaults for the ones the request left out.
 *
 * @example
 * const response = newResponseObject(body, { id: newId('resp'), createdAt: 1_700_000_000, tools });
 */
export function newResponseObject(
  body: CreateResponseBody,
  init: { id: string; createdAt: number; tools: Tool[] },
): ResponseObject {
  return {
    id: init.id,
    object: 'response',
    created_at: init.createdAt,
    status: 'in_progress',
    background: body.background ?? false,
    completed_at: null,
    conversation: null,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    model: body.model,
    output: [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt: null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    prompt_cache_retention: body.prompt_cache_retention ?? null,
    reasoning: echoReasoning(body),
    safety_identifier: body.safety_identifier ?? null,
    // OpenAI shows `fast` as the tier that serves it.
    service_tier: body.service_tier === 'fast' ? 'priority' : (body.service_tier ?? 'default'),
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: {
      format: echoFormat(body),
      verbosity: body.text?.verbosity ?? 'medium',
    },
    tool_choice: echoToolChoice(body),
    tools: init.tools,
    top_logprobs: body.top_logprobs ?? 0,
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    usage: null,
    user: body.user ?? null,
    metadata: body.metadata ?? {},
    presence_penalty: 0,
    frequency_penalty: 0,
    // OpenAI writes an implicit Standard fallback as null, an explicit choice as itself; only
    // 'standard' gets this far (checkLocalOptions refuses the Daybreak programs).
    access_programs: body.access_programs?.cyber ? { cyber: body.access_programs.cyber } : null,
    ...echoCacheOptions(body),
    // The effective policy: local models never compress image context ('enabled' is refused).
    ...(body.image && { image: { context_compression: 'disabled' as const } }),
  };
}

/**
 * `reasoning` as asked, with `mode` and `context` (when the request set them) as what ran: a
 * local model has one execution mode, and never sees reasoning from earlier turns.
 */
function echoReasoning(body: CreateResponseBody): NonNullable<ApiResponse['reasoning']> {
  const r = body.reasoning;
  return {
    effort: r?.effort ?? null,
    summary: r?.summary ?? r?.generate_summary ?? null,
    ...(r?.mode !== undefined && { mode: 'standard' }),
    ...(r?.context != null && { context: 'current_turn' as const }),
  };
}

/**
 * `prompt_cache_options` with OpenAI's defaults filled in; a `comparison_response_id` asks for
 * diagnostics, which are `unavailable` for a model without a prompt cache.
 */
function echoCacheOptions(
  body: CreateResponseBody,
): Pick<ApiResponse, 'prompt_cache_options' | 'prompt_cache_diagnostics'> {
  const o = body.prompt_cache_options;
  if (!o) return {};
  const compare = o.comparison_response_id ?? null;
  return {
    prompt_cache_options: {
      mode: o.mode ?? 'implicit',
      ttl: o.ttl ?? '30m',
      ...(compare !== null && { comparison_response_id: compare }),
    },
    ...(compare !== null && { prompt_cache_diagnostics: { type: 'unavailable' as const } }),
  };
}

/** The tool choice as sent; only the ones intab runs get this far (hosted ones are refused). */
function echoToolChoice(body: CreateResponseBody): ApiResponse['tool_choice'] {
  const parsed = localToolChoiceSchema.safeParse(body.tool_choice);
  return parsed.success ? parsed.data : 'auto';
}

/** OpenAI echoes a json_schema format with every field: `description` null and `strict` false when left out. */
function echoFormat(body: CreateResponseBody): NonNullable<ApiResponse['text']>['format'] {
  const f = body.text?.format ?? { type: 'text' as const };
  if (f.type !== 'json_schema') return f;
  return {
    type: 'json_schema',
    name: f.name,
    description: f.description ?? null,
    schema: f.schema,
    strict: f.strict ?? false,
  } as NonNullable<ApiResponse['text']>['format'];
}
