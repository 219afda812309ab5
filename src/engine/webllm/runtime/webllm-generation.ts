/**
 * Generation through web-llm's chat completions: the request planned, the turn taken, the stream
 * read with a stall bound, and on abort or failure web-llm wound down before the next turn.
 */
import type { ChatCompletionChunk } from '@mlc-ai/web-llm';
import { ApiError, unsupportedModel } from '../../../common/api-error';
import { deadline, EXPIRED } from '../../stall-timeout';
import type { EngineChunk, GenerateRequest } from '../../types';
import type { MLCEngineLike } from '../webllm-engine-options';
import { boundJsonWhitespace } from '../webllm-grammar';
import { inlineImageUrls } from '../webllm-images';
import { isEmbeddingRecord, toModelInfos } from '../webllm-models';
import { ReplyAssembler } from '../webllm-reply';
import { planChatRequest, toTokenLogprobs } from '../webllm-request';
import { filledContext, loadedTokenizer } from '../webllm-tokens';
import { ensureLoaded } from './webllm-loading';
import type { WebLLMRuntime } from './webllm-runtime';

const DEFAULT_GENERATION_STALL_MS = 120_000;
/** How long `interruptGenerate` may take to wind web-llm down before the next job may start anyway. */
const DRAIN_LIMIT_MS = 10_000;

/**
 * Streams `req`'s reply; `turn` waits for the GPU and yields its release, or null when `signal`
 * aborted the wait.
 *
 * @example
 * for await (const chunk of generateReply(runtime, req, signal, () => turns.awaitTurn(signal))) …
 */
export async function* generateReply(
  rt: WebLLMRuntime,
  req: GenerateRequest,
  signal: AbortSignal,
  turn: () => Promise<(() => void) | null>,
): AsyncGenerator<EngineChunk> {
  const record = await rt.recordOf(req.model);
  if (isEmbeddingRecord(record)) throw unsupportedModel(req.model, 'chat');
  const info = toModelInfos([record])[0];
  const messages = await inlineImageUrls(req.messages, globalThis.location?.href);
  const plan = planChatRequest({ ...req, messages }, { vision: info?.vision ?? false });
  const format = plan.body.response_format;
  if (format) plan.body.response_format = await boundJsonWhitespace(await rt.xgrammar(), format);
  const release = await turn();
  if (!release) return;
  const stallMs = rt.opts.generationStallMs ?? DEFAULT_GENERATION_STALL_MS;
  let mlc: MLCEngineLike | undefined;
  let stream: AsyncIterator<ChatCompletionChunk> | undefined;
  let finished = false;
  try {
    await ensureLoaded(rt, req.model);
    mlc = await rt.engine();
    const aborted = abortion(signal);
    stream = (await rt.mapErrors(mlc.chat.completions.create(plan.body), req.model))[Symbol.asyncIterator]();
    const tokenizer = loadedTokenizer(mlc, req.model);
    const reply = new ReplyAssembler(plan.reply, tokenizer ? (t) => tokenizer.encode(t).length : undefined);
    let promptTokens: number | null = null;
    let usage: ChatCompletionChunk['usage'];
    let finishReason: string | null | undefined;
    for (;;) {
      const next = stream.next();
      next.catch(() => {}); // a step abandoned on abort may still reject later
      const limit = deadline(stallMs);
      const step = await Promise.race([rt.mapErrors(next, req.model, mlc), aborted, limit.expired]);
      limit.clear();
      if (step === ABORTED || signal.aborted) return;
      if (step === EXPIRED) throw stalled(req.model, stallMs);
      if (step.done) break;
      const chunk = step.value;
      // Read at the first chunk, before any decoded token is appended to the cache.
      promptTokens ??= filledContext(mlc, req.model);
      usage = chunk.usage ?? usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      finishReason = choice.finish_reason ?? finishReason;
      const delta = choice.delta.content ?? '';
      const logprobs =
        plan.topLogprobs === null ? undefined : toTokenLogprobs(choice.logprobs?.content, plan.topLogprobs);
      if (delta === '' && !logprobs) continue;
      for (const out of reply.push(delta, logprobs)) yield out;
      if (signal.aborted) return;
    }
    finished = true;
    const counted = usage && promptTokens !== null ? { ...usage, prompt_tokens: promptTokens } : usage;
    yield* reply.finish(finishReason, counted);
  } finally {
    if (mlc && stream && !finished) void stop(mlc, stream).finally(release);
    else release();
  }
}

/** Interrupts our generation and lets web-llm's stream finish, which releases its model lock. */
async function stop(mlc: MLCEngineLike, stream: AsyncIterator<ChatCompletionChunk>): Promise<void> {
  try {
    await mlc.interruptGenerate();
  } catch {
    // Nothing more to stop.
  }
  const drained = Promise.resolve(stream.return?.()).catch(() => {});
  await Promise.race([drained, new Promise((r) => setTimeout(r, DRAIN_LIMIT_MS))]);
}

/** The 504 for a generation that produced no token for `ms`. */
function stalled(modelId: string, ms: number): ApiError {
  return new ApiError(
    504,
    'server_error',
    'generation_stalled',
    null,
    `The model '${modelId}' produced no token for ${ms} ms; its generation was stopped.`,
  );
}

const ABORTED = Symbol('aborted');

function abortion(signal: AbortSignal): Promise<typeof ABORTED> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(ABORTED);
    else signal.addEventListener('abort', () => resolve(ABORTED), { once: true });
  });
}
