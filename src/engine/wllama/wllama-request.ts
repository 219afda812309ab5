/**
 * One `GenerateRequest` as wllama's chat completion parameters, plus how to read its reply: the
 * messages for the GGUF's chat template, sampling options, the request's grammar, and what keeps
 * llama.cpp alive while it streams logprobs.
 */
import type { ChatCompletionLogprobsContent, ChatCompletionParams } from '@wllama/wllama/esm/index.js';
import { invalidRequest } from '../../common/api-error';
import { pace } from '../../common/pace';
import type { ModelFamily } from '../tool-formats/model-family';
import { planToolsAndThinking } from '../tool-formats/request-plan';
import type { GenerateRequest, TokenLogprob } from '../types';
import type { ReplyOptions } from '../webllm/webllm-reply';
import { GrammarError, requestGrammarPaced, wllamaCallOpenings } from './grammar';
import { requestTemplateInputs } from './template-inputs';
import type { WllamaChatParams } from './wllama-options';

/** llama.cpp's limit on `top_logprobs`. */
export const WLLAMA_MAX_TOP_LOGPROBS = 20;

/** What the plan needs to know about the loaded model. */
export interface ModelRuntime {
  family: ModelFamily;
  /** Token ids whose text is not valid UTF-8 on its own (banned when logprobs are asked for). */
  invalidUtf8: readonly number[];
  /** Token ids never valid UTF-8 whatever surrounds them (always banned; see `unsafeUtf8Tokens`). */
  unsafeUtf8?: readonly number[];
}

/**
 * The grammar of a request that needs no other: any text at all. It is there for llama.cpp's UTF-8
 * tracking, which only runs under a grammar: a token that starts a character is then followed only
 * by the continuation bytes it needs, so no broken character reaches llama.cpp's JSON writer (a
 * random-weight model otherwise writes `0xC3 'a'`, and the instance dies).
 */
export const ANY_TEXT_GRAMMAR = 'root ::= [^\\x00]*';

export interface WllamaPlan {
  params: WllamaChatParams;
  reply: ReplyOptions;
  /** Top logprobs to keep per token; null when none were asked for. */
  topLogprobs: number | null;
}

/**
 * Plans the wllama request. Tools are taught in the family's native format (a section in the
 * system message) and held by the grammar; a JSON format is asked for in words (a model held to
 * JSON by a grammar alone may write whitespace forever) and by the grammar. The grammar is built
 * in slices that yield to the event loop (a ~435 KB schema took 100-400 ms in one step).
 *
 * @example
 * const { params } = await planWllamaRequest(req, { family, invalidUtf8: [] });
 * await wllama.createChatCompletion({ ...params, stream: true, onData });
 */
export async function planWllamaRequest(req: GenerateRequest, model: ModelRuntime): Promise<WllamaPlan> {
  const family = model.family;
  const { tools, forced, disableThinking, thinking, mayThink } = planToolsAndThinking(req, family);
  let grammar: string | null;
  try {
    grammar = await requestGrammarPaced(
      {
        format: family.tools,
        tools,
        forced,
        parallel: req.parallelToolCalls,
        maxToolCalls: req.maxToolCalls ?? null,
        output: req.format,
        thinking,
        mayThink,
      },
      pace,
    );
  } catch (err) {
    if (err instanceof GrammarError) throw invalidRequest(err.param, err.message, 'unsupported_value');
    throw err;
  }
  const { messages, kwargs } = await requestTemplateInputs(req, family, pace);
  const topLogprobs = req.topLogprobs === null ? null : Math.min(req.topLogprobs, WLLAMA_MAX_TOP_LOGPROBS);
  const params: WllamaChatParams = {
    messages: messages as ChatCompletionParams['messages'],
    // No `return_progress`: each prompt-progress result takes one of wllama's polls, and every poll
    // runs a llama.cpp step, so the first token would wait one more decode (≈30 ms on a 93M model).
    stream_options: { include_usage: true },
    ...(req.temperature !== null ? { temperature: req.temperature } : {}),
    ...(req.topP !== null ? { top_p: req.topP } : {}),
    ...(req.seed != null ? { seed: req.seed } : {}),
    ...(req.maxOutputTokens !== null ? { max_tokens: req.maxOutputTokens } : {}),
    ...(req.stop && req.stop.length > 0 ? { stop: req.stop.slice(0, 4) } : {}),
    grammar: grammar ?? ANY_TEXT_GRAMMAR,
    ...(kwargs ? { chat_template_kwargs: kwargs } : {}),
  };
  if (topLogprobs !== null) {
    params.logprobs = true;
    // llama.cpp samples alternatives only for n_probs > 0; extra ones are dropped when read.
    params.top_logprobs = Math.max(1, topLogprobs);
    // llama.cpp writes each alternative's text into the logprobs JSON, and a token that is not
    // valid UTF-8 by itself aborts the whole instance there (json.exception.type_error.316). Its
    // default alternatives come from the raw logits, where no bias reaches; the post-sampling ones
    // come after the bias below, which keeps every such token out of both the text and the list.
    params.post_sampling_probs = true;
  }
  // Without logprobs only the tokens that are never valid go; with them, every partial one too.
  const banned =
    topLogprobs === null ? (model.unsafeUtf8 ?? []) : [...(model.unsafeUtf8 ?? []), ...model.invalidUtf8];
  if (banned.length > 0)
    params.logit_bias = Object.fromEntries(banned.map((id) => [String(id), false as const]));
  return {
    params,
    reply: {
      reasoning: disableThinking ? null : family.reasoning,
      format: tools.length > 0 ? family.tools : null,
      toolNames: tools.map((t) => t.name),
      tools,
      // Calls are read where the grammar held them: a marker mentioned in prose stays prose.
      ...(tools.length > 0 && !family.tools.leading
        ? { openings: wllamaCallOpenings(family.tools, tools, req.parallelToolCalls) }
        : {}),
    },
    topLogprobs,
  };
}

/** One token's logprobs as llama.cpp sends them: logprobs, or post-sampling probabilities. */
export type LlamaTokenProbs = Partial<ChatCompletionLogprobsContent> & {
  token: string;
  bytes?: number[] | null;
  prob?: number;
  top_probs?: Array<{ token: string; bytes?: number[] | null; prob?: number; logprob?: number }>;
};

/** OpenAI's floor for a logprob too small to tell apart from zero probability. */
const LOGPROB_FLOOR = -9999;

/**
 * llama.cpp's per-token logprobs as the Engine's, keeping `top` alternatives per token. With
 * `post_sampling_probs` llama.cpp sends probabilities (`prob`, `top_probs`) over the candidates its
 * samplers kept; they become logprobs here.
 *
 * @example
 * toTokenLogprobs([{ token: 'Hi', bytes: [72, 105], prob: 0.5, top_probs: [] }], 1); // logprob -0.693…
 */
export function toTokenLogprobs(
  content: LlamaTokenProbs[] | null | undefined,
  top: number,
): TokenLogprob[] | undefined {
  if (!content || content.length === 0) return undefined;
  const logprob = (t: { logprob?: number; prob?: number }) =>
    t.logprob ??
    (t.prob !== undefined && t.prob > 0 ? Math.max(Math.log(t.prob), LOGPROB_FLOOR) : LOGPROB_FLOOR);
  return content.map((t) => ({
    token: t.token,
    logprob: logprob(t),
    bytes: t.bytes ?? [],
    top_logprobs: (t.top_logprobs ?? t.top_probs ?? [])
      .slice(0, top)
      .map((a) => ({ token: a.token, logprob: logprob(a), bytes: a.bytes ?? [] })),
  }));
}
