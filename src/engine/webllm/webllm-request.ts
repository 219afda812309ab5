/**
 * One `GenerateRequest` as web-llm's streaming chat-completion request, plus how to read its reply.
 */
import type {
  ChatCompletionMessageParam,
  ChatCompletionRequestStreaming,
  ChatCompletionTokenLogprob,
  ResponseFormat,
} from '@mlc-ai/web-llm';
import { heldSchema } from '../held-schema';
import { familyOf, type ModelFamily } from '../tool-formats/model-family';
import { jsonInstruction, planToolsAndThinking } from '../tool-formats/request-plan';
import { callOpenings, jsonAfterThinking, toolStructuralTag } from '../tool-formats/structural-tag';
import type { GenerateRequest, OutputFormatSpec, TokenLogprob } from '../types';
import { toWebLLMMessages } from './webllm-messages';
import type { ReplyOptions } from './webllm-reply';

/** web-llm refuses `top_logprobs` above 5 (RangeError in postInitAndCheckGenerationConfigValues). */
export const WEBLLM_MAX_TOP_LOGPROBS = 5;

export interface ChatPlan {
  body: ChatCompletionRequestStreaming;
  reply: ReplyOptions;
  /** How many top logprobs to keep per token; null when logprobs were not asked for. */
  topLogprobs: number | null;
}

/**
 * Plans the web-llm request. Tools are taught in the family's native format and constrained by a
 * structural tag whose triggers leave prose free under `auto`; `required` and named choices need a
 * call from the first token (after the think block, for models that always think first). A JSON
 * `text.format` is both asked for in the prompt (web-llm's JSON grammar alone lets a model that was
 * not told emit whitespace forever) and enforced by grammar.
 *
 * @example
 * const { body } = planChatRequest(req, { vision: false });
 * for await (const chunk of await mlc.chat.completions.create(body)) …
 */
export function planChatRequest(
  req: GenerateRequest,
  model: { vision: boolean },
  opts: { now?: Date } = {},
): ChatPlan {
  const family = familyOf(req.model);
  // Thinking off where web-llm can turn it off (it pre-fills an empty block, as Qwen3's template
  // does); a model that thinks anyway keeps its block free ahead of any grammar.
  const { tools, forced, disableThinking, thinking, mayThink } = planToolsAndThinking(req, family);
  let responseFormat: ResponseFormat | undefined;
  if (tools.length > 0) {
    const tag = toolStructuralTag(family.tools, tools, {
      forced,
      parallel: req.parallelToolCalls,
      format: req.format,
      thinking,
      mayThink,
    });
    responseFormat = { type: 'structural_tag', structural_tag: tag };
  } else if ((thinking || mayThink) && req.format.type !== 'text') {
    const tag = jsonAfterThinking(req.format, thinking, mayThink);
    responseFormat = { type: 'structural_tag', structural_tag: tag };
  } else {
    responseFormat = toResponseFormat(req.format);
  }
  const topLogprobs = req.topLogprobs === null ? null : Math.min(req.topLogprobs, WEBLLM_MAX_TOP_LOGPROBS);

  const body: ChatCompletionRequestStreaming = {
    model: req.model,
    messages: promptMessages(req, family, { vision: model.vision, ...opts }),
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
  // The family's markers even with thinking off: web-llm 0.2.86 pushes the empty block it pre-fills
  // (`<think>\n\n</think>\n\n`) into the output ids, so the reply streams it and the splitter drops it.
  return {
    body,
    reply: {
      reasoning: family.reasoning,
      format: tools.length > 0 ? family.tools : null,
      toolNames: tools.map((t) => t.name),
      tools,
      // Calls are read where the structural tag held them (Llama's whole-reply calls: at the start).
      ...(tools.length > 0 && !family.tools.leading
        ? { openings: callOpenings(family.tools, tools, req.parallelToolCalls) }
        : {}),
    },
    topLogprobs,
  };
}

/** What of a request the prompt depends on (token counting has no more). */
export type PromptRequest = Pick<
  GenerateRequest,
  'messages' | 'tools' | 'toolChoice' | 'format' | 'reasoningEffort' | 'model'
>;

/**
 * The messages web-llm is sent for a request: every tool it declares, in the family's tool section
 * (its choice is the grammar's alone, so the prompt and web-llm's KV cache stay the same whatever
 * the choice), and the JSON instruction of its format. Generation and token counting both take them
 * from here, so a count renders the prompt a generation sends.
 *
 * @example
 * promptMessages(req, familyOf(req.model), { vision: false });
 */
export function promptMessages(
  req: PromptRequest,
  family: ModelFamily,
  opts: { vision: boolean; now?: Date; anyLastTurn?: boolean },
): ChatCompletionMessageParam[] {
  const { promptTools: tools } = planToolsAndThinking(req, family);
  const system = req.format.type === 'text' ? [] : [jsonInstruction(req.format, tools.length > 0)];
  return toWebLLMMessages(req.messages, {
    family,
    system,
    toolSection: tools.length > 0 ? family.tools.toolSection(tools) : null,
    vision: opts.vision,
    modelId: req.model,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.anyLastTurn ? { anyLastTurn: true } : {}),
  });
}

/**
 * The Responses `text.format` as web-llm's `response_format`; undefined for plain text.
 *
 * @example
 * toResponseFormat({ type: 'json_schema', name: 'x', schema: { type: 'object' }, strict: true });
 * // { type: 'json_object', schema: '{"type":"object"}' }
 */
export function toResponseFormat(format: OutputFormatSpec): ResponseFormat | undefined {
  if (format.type === 'json_schema')
    return { type: 'json_object', schema: JSON.stringify(heldSchema(format.schema, format.strict)) };
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
