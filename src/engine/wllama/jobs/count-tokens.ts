/**
 * Token counts: an estimate before a load, a byte bound when it fits the context, and otherwise an
 * exact count from a one-token llama.cpp run, cached per engine.
 */
import type { ChatCompletionChunk } from '@wllama/wllama/esm/index.js';
import { ApiError } from '../../../common/api-error';
import { pace } from '../../../common/pace';
import type { ChatMessage, CountOptions, FunctionToolSpec, PromptShape } from '../../types';
import { ChunkQueue, TimeoutError } from '../chunk-queue';
import { byteBound, estimateTokens, tokenFloor } from '../limits';
import { requestTemplateInputs, type TemplateInputs } from '../template-inputs';
import { isInstanceDead, mapGenerateError, overflowTokens } from '../wllama-errors';
import type { WllamaChunk, WllamaInstance } from '../wllama-instance';
import type { WllamaModels } from './models';

/** A request that says nothing else: every tool offered, text, the default effort. */
const DEFAULT_SHAPE: PromptShape = { toolChoice: 'auto', format: { type: 'text' }, reasoningEffort: null };

/** Counts kept per engine (prompt → tokens), so one request's repeated counts run llama.cpp once. */
const COUNT_CACHE = 64;

/**
 * llama.cpp has no tokenizer call in wllama 3, so an exact count runs the prompt for one token
 * and reads its `prompt_tokens` (the prompt then stays in the KV cache for the generation). That
 * costs a prefill, so unless `opts.exact` asks for it, a bound is answered when it already fits the
 * context: every token of a byte-level or byte-fallback vocabulary holds at least one byte, so the
 * rendered text's UTF-8 length plus the template's markup bounds the count. Before a load: an
 * estimate.
 *
 * @example
 * const n = await countTokens(models, 'tiny', messages, tools, { exact: true });
 */
export async function countTokens(
  models: WllamaModels,
  modelId: string,
  messages: ChatMessage[],
  tools: FunctionToolSpec[] = [],
  opts: CountOptions = {},
): Promise<number> {
  models.registration(modelId);
  const inst = models.liveInstance(modelId);
  const family = inst?.facts.family ?? models.facts.get(modelId)?.family;
  // The same template inputs a generation of this request would hand llama.cpp (its tool choice,
  // JSON instruction and `enable_thinking`).
  const shape = opts.shape ?? DEFAULT_SHAPE;
  const inputs = family
    ? await requestTemplateInputs({ messages, tools, model: modelId, ...shape }, family, pace, {
        anyLastTurn: true,
      })
    : null;
  if (!inst || !inputs) return estimateTokens(messages, tools);
  if (!opts.exact) {
    const bound = byteBound(inputs.messages, inputs.kwargs);
    if (bound <= inst.runtime.contextSize) return bound;
    // Too big to fit by its size alone: said without the run, whose tokenizing is linear in the
    // input but seconds long for megabytes (the engine held meanwhile).
    const floor = tokenFloor(inputs.messages, inst.facts.maxTokenBytes);
    if (floor > inst.runtime.contextSize) return floor;
  }
  const key = `${modelId}\n${JSON.stringify(inputs)}`;
  const known = models.counts.get(key);
  if (known !== undefined) return known;
  const release = (await models.turns.awaitTurn()) as () => void;
  try {
    const live = models.liveInstance(modelId);
    if (!live) return estimateTokens(messages, tools);
    const n = await countRun(models, live, inputs);
    models.counts.set(key, n);
    if (models.counts.size > COUNT_CACHE) models.counts.delete(models.counts.keys().next().value as string);
    return n;
  } finally {
    release();
  }
}

/** One-token run of `messages`; its `prompt_tokens` is the count. */
async function countRun(
  models: WllamaModels,
  inst: WllamaInstance,
  { messages, kwargs }: TemplateInputs,
): Promise<number> {
  const queue = new ChunkQueue<WllamaChunk>();
  const mark = inst.log.mark();
  const run = inst.wllama.createChatCompletion({
    messages,
    ...(kwargs ? { chat_template_kwargs: kwargs } : {}),
    max_tokens: 1,
    temperature: 0,
    stream: true,
    stream_options: { include_usage: true },
    onData: (c: ChatCompletionChunk) => queue.push(c as WllamaChunk),
  });
  run.then(
    () => queue.end(),
    (err: unknown) => queue.fail(err),
  );
  for (;;) {
    const step = await queue.next(models.prefillMs(messages));
    if (step.kind === 'item') {
      const usage = step.value.usage;
      if (usage) {
        await run.catch(() => {});
        return usage.prompt_tokens;
      }
      continue;
    }
    if (step.kind === 'error') {
      const over = overflowTokens(step.error);
      if (over !== null) return over;
      if (isInstanceDead(step.error)) models.discard(inst, 'crashed while counting');
      throw mapGenerateError(step.error, inst.modelId, inst.log.trouble(mark));
    }
    if (step.kind === 'timeout') {
      models.discard(inst, 'no answer while counting');
      throw mapGenerateError(new TimeoutError('counting the prompt got no answer'), inst.modelId);
    }
    throw new ApiError(500, 'server_error', 'server_error', null, 'llama.cpp reported no token count.');
  }
}
