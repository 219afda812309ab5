/**
 * The engine's GenerateRequest as one `POST /chat/completions` body, in OpenAI's chat shape, which
 * every OpenAI-compatible server reads.
 */
import { callableTools } from '../tool-formats/request-plan';
import type { ChatMessage, GenerateRequest } from '../types';

/** The Chat Completions body (the fields intab sends). */
export interface ChatCompletionsBody {
  model: string;
  messages: unknown[];
  stream: true;
  stream_options: { include_usage: true };
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  seed?: number;
  stop?: string[];
  logprobs?: boolean;
  top_logprobs?: number;
  response_format?: unknown;
  tools?: unknown[];
  tool_choice?: unknown;
  parallel_tool_calls?: boolean;
  reasoning_effort?: string;
}

/** A message as OpenAI's chat API takes it (intab's own `reasoning` field stays home). */
function chatMessage(m: ChatMessage): unknown {
  switch (m.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: m.content,
        ...(m.tool_calls?.length ? { tool_calls: m.tool_calls } : {}),
      };
    case 'tool':
      return { role: 'tool', content: m.content, tool_call_id: m.tool_call_id };
    default:
      return m;
  }
}

/**
 * Builds the body. A named `tool_choice` goes out as `"required"` with only that tool: one tool
 * that must be called is exactly the named choice, and it is the form every server honours
 * (llama-server ignores OpenAI's object form and would treat it as `auto`).
 *
 * @example
 * chatBody(req, 'qwen3-32b') // → { model: 'qwen3-32b', messages, stream: true, … }
 */
export function chatBody(req: GenerateRequest, upstreamModel: string): ChatCompletionsBody {
  const body: ChatCompletionsBody = {
    model: upstreamModel,
    messages: req.messages.map(chatMessage),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (req.maxOutputTokens !== null) body.max_tokens = req.maxOutputTokens;
  if (req.temperature !== null) body.temperature = req.temperature;
  if (req.topP !== null) body.top_p = req.topP;
  if (typeof req.seed === 'number') body.seed = req.seed;
  if (req.stop?.length) body.stop = req.stop;
  if (req.topLogprobs !== null) {
    body.logprobs = true;
    body.top_logprobs = req.topLogprobs;
  }
  if (req.format.type === 'json_object') body.response_format = { type: 'json_object' };
  else if (req.format.type === 'json_schema')
    body.response_format = {
      type: 'json_schema',
      json_schema: { name: req.format.name, schema: req.format.schema, strict: req.format.strict },
    };
  if (req.reasoningEffort) body.reasoning_effort = req.reasoningEffort;
  const choice = req.toolChoice;
  const named = typeof choice === 'object' ? choice.name : null;
  // Sent with `none` too: the template shows the tools the earlier turns called. `allowed_tools`
  // narrows the list itself, the one form every server honours.
  const tools = choice === 'none' ? req.tools : callableTools(req);
  if (tools.length > 0) {
    body.tools = tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        parameters: t.parameters ?? { type: 'object', properties: {} },
        ...(t.strict !== null ? { strict: t.strict } : {}),
      },
    }));
    body.tool_choice = named ? 'required' : choice;
    body.parallel_tool_calls = req.parallelToolCalls;
  }
  return body;
}
