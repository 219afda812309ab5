import type { Response as ApiResponse, FunctionTool } from 'openai/resources/responses/responses';
import type { CreateResponseBody } from './create-schema';

/**
 * The wire response object. `output_text` is a convenience the `openai` SDK adds on the client;
 * OpenAI does not send it, so neither do we. The penalties are on the wire (and in the spec) but
 * not in the SDK's type.
 */
export type ResponseObject = Omit<ApiResponse, 'output_text'> & {
  presence_penalty: number;
  frequency_penalty: number;
  max_tool_calls: number | null;
  store: boolean;
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
  init: { id: string; createdAt: number; tools: FunctionTool[] },
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
    reasoning: {
      effort: body.reasoning?.effort ?? null,
      summary: body.reasoning?.summary ?? body.reasoning?.generate_summary ?? null,
    },
    safety_identifier: body.safety_identifier ?? null,
    service_tier: body.service_tier ?? 'default',
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: {
      format: echoFormat(body),
      verbosity: body.text?.verbosity ?? 'medium',
    },
    tool_choice: (body.tool_choice ?? 'auto') as ApiResponse['tool_choice'],
    tools: init.tools,
    top_logprobs: body.top_logprobs ?? 0,
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    usage: null as unknown as ApiResponse['usage'],
    user: (body.user ?? null) as ApiResponse['user'],
    metadata: body.metadata ?? {},
    presence_penalty: 0,
    frequency_penalty: 0,
  };
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
