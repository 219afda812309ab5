/**
 * One `GenerateRequest` as web-llm's streaming chat-completion request, plus how to read its reply.
 */
import type {
  ChatCompletionRequestStreaming,
  ChatCompletionTokenLogprob,
  ResponseFormat,
} from '@mlc-ai/web-llm';
import type { GenerateRequest, OutputFormatSpec, TokenLogprob } from './types';
import { toWebLLMMessages } from './webllm-messages';
import { canDisableThinking, emitsThinkBlocks } from './webllm-models';
import type { ReplyOptions } from './webllm-reply';
import { allowedTools, buildToolPrompt, toolCallSchema } from './webllm-tool-prompt';

/** web-llm refuses `top_logprobs` above 5 (RangeError in postInitAndCheckGenerationConfigValues). */
export const WEBLLM_MAX_TOP_LOGPROBS = 5;

export interface ChatPlan {
  body: ChatCompletionRequestStreaming;
  reply: ReplyOptions;
  /** How many top logprobs to keep per token; null when logprobs were not asked for. */
  topLogprobs: number | null;
}

/**
 * Plans the web-llm request. Tool calling is prompt-based (see webllm-tool-prompt); `required` and
 * named choices are also grammar-constrained, and that constraint wins over `format`. With `auto`
 * tools a format cannot be enforced without forbidding calls, so it is described in the prompt.
 *
 * @example
 * const { body } = planChatRequest(req, { vision: false });
 * for await (const chunk of await mlc.chat.completions.create(body)) …
 */
export function planChatRequest(req: GenerateRequest, model: { vision: boolean }): ChatPlan {
  const tools = allowedTools(req.tools, req.toolChoice);
  const system: string[] = [];
  let responseFormat: ResponseFormat | undefined;
  let toolMode: ReplyOptions['tools'] = 'none';
  if (tools.length > 0) {
    system.push(buildToolPrompt(tools, req.toolChoice, req.parallelToolCalls));
    const schema = toolCallSchema(tools, req.toolChoice, req.parallelToolCalls);
    toolMode = schema ? 'forced' : 'auto';
    if (schema) responseFormat = { type: 'json_object', schema: JSON.stringify(schema) };
    else if (req.format.type !== 'text') system.push(formatHint(req.format));
  } else {
    responseFormat = toResponseFormat(req.format);
  }

  const effortOff = req.reasoningEffort === 'none' || req.reasoningEffort === 'minimal';
  // A grammar constrains the reply from its first token, so `<think>` could never be written:
  // pre-fill the empty block instead, as Qwen3's template does when thinking is off.
  const disableThinking = canDisableThinking(req.model) && (effortOff || responseFormat !== undefined);
  const topLogprobs = req.topLogprobs === null ? null : Math.min(req.topLogprobs, WEBLLM_MAX_TOP_LOGPROBS);

  const body: ChatCompletionRequestStreaming = {
    model: req.model,
    messages: toWebLLMMessages(req.messages, { system, vision: model.vision, modelId: req.model }),
    stream: true,
    stream_options: { include_usage: true },
    ...(req.temperature !== null ? { temperature: req.temperature } : {}),
    ...(req.topP !== null ? { top_p: req.topP } : {}),
    ...(req.maxOutputTokens !== null ? { max_tokens: req.maxOutputTokens } : {}),
    // web-llm records no logprobs at all when top_logprobs is 0 (it samples them only for k > 0),
    // so ask for at least one and trim the extra in toTokenLogprobs.
    ...(topLogprobs !== null ? { logprobs: true, top_logprobs: Math.max(1, topLogprobs) } : {}),
    ...(responseFormat ? { response_format: responseFormat } : {}),
    ...(disableThinking ? { extra_body: { enable_thinking: false } } : {}),
  };
  return {
    body,
    reply: { splitThink: emitsThinkBlocks(req.model), tools: toolMode, toolNames: tools.map((t) => t.name) },
    topLogprobs,
  };
}

/**
 * The Responses `text.format` as web-llm's `response_format`; undefined for plain text.
 *
 * @example
 * toResponseFormat({ type: 'json_schema', name: 'x', schema: { type: 'object' }, strict: true });
 * // { type: 'json_object', schema: '{"type":"object"}' }
 */
export function toResponseFormat(format: OutputFormatSpec): ResponseFormat | undefined {
  if (format.type === 'json_schema') return { type: 'json_object', schema: JSON.stringify(format.schema) };
  if (format.type === 'json_object') return { type: 'json_object' };
  return undefined;
}

/**
 * web-llm's per-token logprobs as the Engine's, keeping `top` alternatives per token.
 *
 * @example
 * toTokenLogprobs(chunk.choices[0].logprobs?.content, 0); // [{token:'Hi', logprob:-0.1, bytes:[72,105], top_logprobs:[]}]
 */
export function toTokenLogprobs(
  content: ChatCompletionTokenLogprob[] | null | undefined,
  top: number,
): TokenLogprob[] | undefined {
  if (!content || content.length === 0) return undefined;
  return content.map((t) => ({
    token: t.token,
    logprob: t.logprob,
    bytes: t.bytes ?? [],
    top_logprobs: (t.top_logprobs ?? [])
      .slice(0, top)
      .map((a) => ({ token: a.token, logprob: a.logprob, bytes: a.bytes ?? [] })),
  }));
}

function formatHint(format: OutputFormatSpec): string {
  if (format.type === 'json_schema') {
    return `When you reply in text, reply with only JSON matching this JSON Schema:\n${JSON.stringify(format.schema)}`;
  }
  return 'When you reply in text, reply with only a JSON object.';
}
