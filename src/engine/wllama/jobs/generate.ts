/**
 * One chat generation on llama.cpp: streamed through a bounded chunk queue (the first chunk gets a
 * prefill bound, later ones the stall bound), and on abort drained before the gate is released.
 */
import type { ChatCompletionChunk } from '@wllama/wllama/esm/index.js';
import { unsupportedModel } from '../../../common/api-error';
import type { EngineChunk, GenerateRequest } from '../../types';
import { ReplyAssembler } from '../../webllm/webllm-reply';
import { ChunkQueue, TimeoutError, withTimeout } from '../chunk-queue';
import { logPrompt, verbosePrompt } from '../prompt-log';
import type { TemplateMessage } from '../template-messages';
import { isInstanceDead, mapGenerateError } from '../wllama-errors';
import type { WllamaChunk, WllamaInstance } from '../wllama-instance';
import { type LlamaTokenProbs, planWllamaRequest, toTokenLogprobs } from '../wllama-request';
import type { WllamaLoader } from './load';
import type { WllamaModels } from './models';

/** How long an aborted generation may take to stop before its instance is discarded. */
const DRAIN_MS = 10_000;

/**
 * @example
 * for await (const chunk of generateChunks(models, loader, req, signal)) …
 */
export async function* generateChunks(
  models: WllamaModels,
  loader: WllamaLoader,
  req: GenerateRequest,
  signal: AbortSignal,
): AsyncGenerator<EngineChunk> {
  models.registration(req.model);
  if (models.kindOf(req.model) === 'embeddings') throw unsupportedModel(req.model, 'chat');
  models.turns.refuseWhenFull(req.model);
  const release = await models.turns.awaitTurn(signal);
  if (!release) return;
  let drained: Promise<void> | null = null;
  try {
    const inst = await loader.shared(req.model, undefined, false);
    const plan = await planWllamaRequest(req, inst.facts);
    const queue = new ChunkQueue<WllamaChunk>();
    const stop = new AbortController();
    let abortedAt = 0;
    let tokensAfterAbort = 0;
    const mark = inst.log.mark();
    const logPrompts = models.opts.logPrompts === true;
    const run = inst.wllama.createChatCompletion({
      ...plan.params,
      ...(logPrompts ? { verbose: true } : {}),
      stream: true,
      abortSignal: stop.signal,
      onData: (chunk: ChatCompletionChunk) => {
        if (abortedAt && chunk.choices[0]?.delta?.content) tokensAfterAbort++;
        const prompt = logPrompts ? verbosePrompt(chunk) : null;
        if (prompt !== null) logPrompt(req.model, prompt);
        queue.push(chunk as WllamaChunk);
      },
    });
    run.then(
      () => queue.end(),
      (err: unknown) => queue.fail(err),
    );
    const halt = () => {
      if (queue.settled) return;
      abortedAt = performance.now();
      stop.abort();
      // A discarded instance's worker is gone: nothing will answer, so nothing to wait for.
      if (inst.dead) return;
      drained = drain(models, inst, run, () => {
        const ms = Math.round(performance.now() - abortedAt);
        console.debug(
          `[intab] wllama '${req.model}': generation stopped ${tokensAfterAbort} token(s) after the abort (${ms} ms)`,
        );
      });
    };
    try {
      const reply = new ReplyAssembler(plan.reply);
      let usage: ChatCompletionChunk['usage'];
      let timings: WllamaChunk['timings'];
      let finishReason: string | null = null;
      // Nothing arrives while llama.cpp reads the prompt, one batch per step: the first chunk may
      // take one stall bound per batch.
      let wait = models.prefillMs(plan.params.messages as TemplateMessage[]);
      for (;;) {
        const step = await queue.next(wait, signal);
        wait = models.stallMs();
        if (step.kind === 'aborted') return;
        if (step.kind === 'end') break;
        if (step.kind === 'timeout') {
          models.discard(inst, 'no output in time');
          throw mapGenerateError(
            new TimeoutError(`no token within the stall bound (${models.stallMs()} ms a step)`),
            req.model,
            inst.log.trouble(mark),
          );
        }
        if (step.kind === 'error') {
          if ((step.error as Error | null)?.name === 'AbortError' && signal.aborted) return;
          if (isInstanceDead(step.error)) models.discard(inst, 'crashed');
          throw mapGenerateError(step.error, req.model, inst.log.trouble(mark));
        }
        const chunk = step.value;
        usage = chunk.usage ?? usage;
        timings = chunk.timings ?? timings;
        const choice = chunk.choices[0];
        if (!choice) continue;
        finishReason = choice.finish_reason ?? finishReason;
        const delta = choice.delta?.content ?? '';
        const logprobs =
          plan.topLogprobs === null
            ? undefined
            : toTokenLogprobs(choice.logprobs?.content as LlamaTokenProbs[] | undefined, plan.topLogprobs);
        if (delta === '' && !logprobs) continue;
        for (const out of reply.push(delta, logprobs)) yield out;
        if (signal.aborted) return;
      }
      const counted = usage
        ? { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens }
        : undefined;
      for (const out of reply.finish(finishReason, counted)) {
        if (out.type === 'done') {
          out.usage.cached_tokens = timings?.cache_n ?? usage?.prompt_tokens_details?.cached_tokens ?? 0;
        }
        yield out;
      }
    } finally {
      halt();
    }
  } finally {
    if (drained) void (drained as Promise<void>).finally(release);
    else release();
  }
}

/**
 * Waits (bounded) for an aborted run to stop; one that does not stop in time takes its instance
 * with it, so the next request gets a working one.
 */
async function drain(
  models: WllamaModels,
  inst: WllamaInstance,
  run: Promise<void>,
  done: () => void,
): Promise<void> {
  const stopped = await withTimeout(
    run.then(
      () => true,
      () => true,
    ),
    DRAIN_MS,
    'llama.cpp (stopping)',
  ).catch(() => false);
  if (!stopped) models.discard(inst, `did not stop within ${DRAIN_MS} ms of an abort`);
  done();
}
