import type { FunctionTool, ResponseItem } from 'openai/resources/responses/responses';
import type {
  ChatMessage,
  Engine,
  FunctionToolSpec,
  GenerateRequest,
  ModelInfo,
  OutputFormatSpec,
  ToolChoiceSpec,
} from '../engine/types';
import type { ResponseStore } from '../store/types';
import { invalidRequest, notFound } from './api-error';
import { expandCompactions } from './compaction';
import { conversationHistory } from './conversation-routes';
import { type CreateResponseBody, createResponseSchema, functionToolSchema } from './create-schema';
import { normalizeInput } from './input-items';
import { toChatMessages } from './to-chat-messages';
import { parseOrThrow } from './validate';

/** Everything a validated create request needs to run. */
export interface PreparedCreate {
  body: CreateResponseBody;
  model: ModelInfo;
  tools: FunctionTool[];
  /** History (from previous_response_id or the conversation) followed by this request's input, with ids. */
  inputItems: ResponseItem[];
  /** This request's own input items, with ids: what a conversation gets appended. */
  newItems: ResponseItem[];
  conversationId: string | null;
  generate: GenerateRequest;
}

/**
 * Validates a create body and resolves everything it refers to (model, previous response, item
 * references), failing with OpenAI's 4xx before anything is generated or stored.
 *
 * @example
 * const prepared = await prepareCreate(json, { engine, store });
 */
export async function prepareCreate(
  json: unknown,
  deps: { engine: Engine; store: ResponseStore },
  opts: { fit: boolean } = { fit: true },
): Promise<PreparedCreate> {
  const body = parseOrThrow(createResponseSchema, json);
  const model = deps.engine.models().find((m) => m.id === body.model);
  if (!model)
    throw invalidRequest('model', `The requested model '${body.model}' does not exist.`, 'model_not_found');
  const tools = parseTools(body);
  const toolChoice = parseToolChoice(body, tools);

  if (body.conversation != null && body.previous_response_id != null) {
    throw invalidRequest(
      'conversation',
      'Mutually exclusive parameters: conversation and previous_response_id. Ensure you are only providing one of them.',
      'mutually_exclusive_parameters',
    );
  }
  const conversationId =
    typeof body.conversation === 'string' ? body.conversation : (body.conversation?.id ?? null);
  const history = conversationId
    ? await conversationHistory(deps.store, conversationId)
    : await historyOf(body.previous_response_id ?? null, deps.store);
  const input = await normalizeInput(
    body.input,
    (id) => deps.store.findItem(id) as Promise<ResponseItem | undefined>,
  );
  const inputItems = [...history, ...input];
  let messages = toChatMessages(body.instructions ?? null, expandCompactions(inputItems), {
    vision: model.vision,
  });
  const specs = toolChoice.allowed.map(toSpec);
  if (opts.fit) messages = await fitContext(messages, specs, model, body, deps.engine);

  return {
    body,
    model,
    tools,
    inputItems,
    newItems: input,
    conversationId,
    generate: {
      model: model.id,
      messages,
      tools: toolChoice.choice === 'none' ? [] : specs,
      toolChoice: toolChoice.choice,
      parallelToolCalls: body.parallel_tool_calls ?? true,
      format: toFormat(body),
      reasoningEffort: body.reasoning?.effort ?? null,
      maxOutputTokens: body.max_output_tokens ?? null,
      temperature: body.temperature ?? null,
      topP: body.top_p ?? null,
      topLogprobs: body.include?.includes('message.output_text.logprobs') ? (body.top_logprobs ?? 0) : null,
    },
  };
}

async function historyOf(previousId: string | null, store: ResponseStore): Promise<ResponseItem[]> {
  if (!previousId) return [];
  const prev = await store.getResponse(previousId);
  if (!prev) throw notFound(`Previous response with id '${previousId}' not found.`, 'previous_response_id');
  return [...prev.inputItems, ...(prev.response.output as ResponseItem[])];
}

function parseTools(body: CreateResponseBody): FunctionTool[] {
  return (body.tools ?? []).map((raw, i) => {
    if (raw.type !== 'function') {
      throw invalidRequest(
        `tools[${i}].type`,
        `Tool type '${raw.type}' is not supported by intab: only 'function' tools run locally.`,
        'unsupported_value',
      );
    }
    const t = parseOrThrow(functionToolSchema, raw, ['tools', i]);
    return {
      type: 'function',
      name: t.name,
      description: t.description ?? null,
      parameters: t.parameters ?? null,
      strict: t.strict ?? true,
    };
  });
}

function parseToolChoice(
  body: CreateResponseBody,
  tools: FunctionTool[],
): { choice: ToolChoiceSpec; allowed: FunctionTool[] } {
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
  if (tc.type === 'function') {
    const name = (tc as { name: string }).name;
    const tool = tools.find((t) => t.name === name);
    if (!tool)
      throw invalidRequest(
        'tool_choice',
        `Tool choice '${name}' not found in 'tools' parameter.`,
        'invalid_value',
      );
    return { choice: { name }, allowed: [tool] };
  }
  if (tc.type === 'allowed_tools') {
    const spec = tc as { mode: 'auto' | 'required'; tools: { type: string; name?: string }[] };
    const allowed = spec.tools.map((ref, i) => {
      const tool = tools.find((t) => ref.type === 'function' && t.name === ref.name);
      if (!tool)
        throw invalidRequest(
          `tool_choice.tools[${i}]`,
          `Tool '${ref.name ?? ref.type}' not found in 'tools' parameter.`,
          'invalid_value',
        );
      return tool;
    });
    return { choice: spec.mode, allowed };
  }
  throw invalidRequest(
    'tool_choice.type',
    `Tool choice type '${tc.type}' is not supported by intab: only function tools run locally.`,
    'unsupported_value',
  );
}

function toSpec(t: FunctionTool): FunctionToolSpec {
  return { name: t.name, description: t.description ?? null, parameters: t.parameters, strict: t.strict };
}

function toFormat(body: CreateResponseBody): OutputFormatSpec {
  const f = body.text?.format;
  if (!f || f.type === 'text') return { type: 'text' };
  if (f.type === 'json_object') return { type: 'json_object' };
  return { type: 'json_schema', name: f.name, schema: f.schema, strict: f.strict ?? false };
}

/**
 * Applies `truncation`: with `auto` the oldest non-system messages are dropped until the input fits
 * the model's context window; with `disabled` (the default) an oversized input is a 400.
 */
async function fitContext(
  messages: ChatMessage[],
  tools: FunctionToolSpec[],
  model: ModelInfo,
  body: CreateResponseBody,
  engine: Engine,
): Promise<ChatMessage[]> {
  const budget = model.contextWindow;
  let count = await engine.countTokens(model.id, messages, tools);
  if (count <= budget) return messages;
  if ((body.truncation ?? 'disabled') === 'disabled') {
    throw invalidRequest(
      'input',
      `Your input exceeds the context window of this model (${count} > ${budget} tokens). Please adjust your input and try again.`,
      'context_length_exceeded',
    );
  }
  const kept = [...messages];
  for (;;) {
    const i = kept.findIndex((m) => m.role !== 'system');
    if (i < 0 || i === kept.length - 1) break;
    kept.splice(i, 1);
    // A tool result without its call would confuse any chat template.
    while (kept[i]?.role === 'tool') kept.splice(i, 1);
    count = await engine.countTokens(model.id, kept, tools);
    if (count <= budget) return kept;
  }
  throw invalidRequest(
    'input',
    `Your input exceeds the context window of this model (${count} > ${budget} tokens), even after truncation.`,
    'context_length_exceeded',
  );
}
