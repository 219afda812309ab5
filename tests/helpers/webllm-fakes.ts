/**
 * Test doubles for the web-llm engine: a fake MLCEngine that streams like web-llm 0.2.86 (one chunk
 * per decode step, then a finish chunk and a usage chunk), and helpers to drive the engine with it.
 */
import type {
  AppConfig,
  ChatCompletionChunk,
  ChatCompletionRequestStreaming,
  ChatCompletionTokenLogprob,
  ChatOptions,
  CreateEmbeddingResponse,
  EmbeddingCreateParams,
  InitProgressReport,
  MLCEngineConfig,
} from '@mlc-ai/web-llm';
import { expect } from 'vitest';
import { ApiError } from '../../src/common/api-error';
import type { EngineChunk, GenerateRequest } from '../../src/engine/types';
import {
  type MLCEngineLike,
  WebLLMEngine,
  type WebLLMEngineOptions,
} from '../../src/engine/webllm/webllm-engine';
import { generateRequest } from './generate-request';
import { xgrammar } from './xgrammar';

export const LLAMA = 'Llama-3.2-1B-Instruct-q4f16_1-MLC';
export const QWEN3 = 'Qwen3-0.6B-q4f16_1-MLC';
export const PHI_V = 'Phi-3.5-vision-instruct-q4f16_1-MLC';
export const EMBED = 'snowflake-arctic-embed-s-q0f32-MLC-b4';

export const appConfig: AppConfig = {
  model_list: [
    {
      model: 'https://hf.co/a',
      model_id: LLAMA,
      model_lib: 'https://x/a.wasm',
      overrides: { context_window_size: 8192 },
    },
    { model: 'https://hf.co/q', model_id: QWEN3, model_lib: 'https://x/q.wasm' },
    { model: 'https://hf.co/p', model_id: PHI_V, model_lib: 'https://x/p.wasm', model_type: 2 },
    {
      model: 'https://hf.co/e',
      model_id: EMBED,
      model_lib: 'https://x/snowflake-arctic-embed-s-q0f32-ctx512_cs512_batch4-webgpu.wasm',
      model_type: 1,
    },
  ],
};

const USAGE_EXTRA = {
  e2e_latency_s: 0.1,
  prefill_tokens_per_s: 100,
  decode_tokens_per_s: 20,
  time_to_first_token_s: 0.05,
  time_per_output_token_s: 0.05,
};

export type Step = { text?: string; logprobs?: ChatCompletionTokenLogprob[]; finish?: string };

export function chunk(step: Step): ChatCompletionChunk {
  return {
    id: 'c',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [
      {
        index: 0,
        delta: step.text === undefined ? {} : { role: 'assistant', content: step.text },
        finish_reason: (step.finish ?? null) as ChatCompletionChunk.Choice['finish_reason'],
        ...(step.logprobs ? { logprobs: { content: step.logprobs } } : {}),
      },
    ],
  };
}

/**
 * A stand-in for web-llm's MLCEngine with its streaming behaviour: one chunk per decode step.
 *
 * @example
 * const fake = new FakeMLC({}); fake.reply = [{ text: 'Hi' }];
 */
export class FakeMLC implements MLCEngineLike {
  /** Each `reload`'s model id, or its list of ids when several were loaded together. */
  reloads: Array<string | string[]> = [];
  unloads = 0;
  interrupts = 0;
  requests: ChatCompletionRequestStreaming[] = [];
  progress: ((r: InitProgressReport) => void) | undefined;
  reloadImpl: (id: string) => Promise<void> = async () => {
    this.progress?.({ progress: 0.5, timeElapsed: 1, text: 'Fetching param cache[1/2]' });
    this.progress?.({ progress: 1, timeElapsed: 2, text: 'Finish loading on WebGPU' });
  };
  /** The reply of the next generation: text deltas, then finish and usage chunks. */
  reply: Step[] = [{ text: 'Hello' }, { text: ' world' }];
  finish = 'stop';
  createError: unknown = null;
  streamError: unknown = null;
  /** ms per decode step; with `endless`, decodes until interrupted (web-llm checks the flag per step). */
  stepMs = 0;
  endless = false;
  /** Decode steps that ran to their end (each after its `stepMs`). */
  stepsDone = 0;
  /**
   * web-llm's private per-model pipelines (read for the tokenizer and the KV-cache length): a
   * tokenizer whose tokens are whitespace-separated words, and `filledKVCacheLength`.
   */
  loadedModelIdToPipeline = new Map<
    string,
    { tokenizer: { encode(t: string): number[] }; filledKVCacheLength: number }
  >();
  /** The KV-cache length once the prompt is prefilled, reused turns included; 0: not simulated. */
  contextTokens = 0;
  private interrupted = false;

  constructor(config: MLCEngineConfig) {
    this.progress = config.initProgressCallback;
  }

  /** The chat options of each `reload`, in order (undefined where none were passed). */
  reloadOptions: Array<ChatOptions | ChatOptions[] | undefined> = [];
  /** As web-llm: unloads everything, then loads each id in turn (one ChatOptions per id if a list). */
  async reload(id: string | string[], chatOpts?: ChatOptions | ChatOptions[]): Promise<void> {
    this.reloads.push(Array.isArray(id) ? [...id] : id);
    this.reloadOptions.push(chatOpts === undefined ? undefined : structuredClone(chatOpts));
    this.loadedModelIdToPipeline = new Map();
    const ids = Array.isArray(id) ? id : [id];
    if (Array.isArray(chatOpts) && chatOpts.length !== ids.length)
      throw Object.assign(new Error('Expect chatOpts to have the same length as modelId'), {
        name: 'ReloadArgumentSizeUnmatchedError',
      });
    const encode = (t: string) =>
      t
        .split(/\s+/)
        .filter(Boolean)
        .map((_, i) => i);
    for (const one of ids) {
      await this.reloadImpl(one);
      this.loadedModelIdToPipeline.set(one, { tokenizer: { encode }, filledKVCacheLength: 0 });
    }
  }
  async unload(): Promise<void> {
    this.unloads++;
    this.loadedModelIdToPipeline.clear();
    const abort = this.abortReload;
    this.abortReload = null;
    abort?.();
  }
  private abortReload: (() => void) | null = null;
  /**
   * A `reloadImpl` that downloads like web-llm 0.2.86 and honours `unload()`: it reports
   * "Fetching param cache[i/n]" per shard of `shardMB`, then waits at shard `stopAt` until `unload()`
   * aborts it, and returns quietly as web-llm's aborted `reload` does.
   */
  downloadUntilUnloaded(opts: { shards: number; shardMB: number; stopAt: number }): void {
    this.reloadImpl = async () => {
      const report = (i: number) =>
        this.progress?.({
          progress: i / opts.shards,
          timeElapsed: i,
          text:
            i === 0
              ? 'Start to fetch params'
              : `Fetching param cache[${i}/${opts.shards}]: ${i * opts.shardMB}MB fetched. ${Math.floor((i * 100) / opts.shards)}% completed, ${i} secs elapsed. It can take a while when we first visit this page to populate the cache. Later refreshes will become faster.`,
        });
      for (let i = 0; i <= opts.shards; i++) {
        if (i === opts.stopAt) {
          await new Promise<void>((r) => (this.abortReload = r));
          return;
        }
        report(i);
        await new Promise((r) => setTimeout(r, 1));
      }
    };
  }
  /** What web-llm does on `device.lost` outside a reload: it unloads by itself. */
  loseDevice(): void {
    this.loadedModelIdToPipeline.clear();
  }
  /**
   * Loses the GPU device during decode step `n`, as it really happens (out of memory mid-generation):
   * web-llm's `device.lost` handler unloads every pipeline, and the decode step in flight fails with
   * whatever the disposed runtime throws, not a `DeviceLostError` (web-llm raises that only from
   * `reload`).
   */
  loseDeviceAtStep: number | null = null;
  async interruptGenerate(): Promise<void> {
    this.interrupts++;
    this.interrupted = true;
  }
  chat = {
    completions: {
      create: async (req: ChatCompletionRequestStreaming): Promise<AsyncIterable<ChatCompletionChunk>> => {
        this.requests.push(structuredClone(req));
        if (this.createError) throw this.createError;
        this.interrupted = false;
        return this.stream(req);
      },
    },
  };

  embedRequests: EmbeddingCreateParams[] = [];
  embedError: unknown = null;
  embeddings = {
    /**
     * As web-llm 0.2.86 answers: one 4-dimensional vector per input (its length, its index, 1, 0),
     * and `usage` with the inputs' words as prompt tokens plus web-llm's own `extra`.
     */
    create: async (req: EmbeddingCreateParams): Promise<CreateEmbeddingResponse> => {
      this.embedRequests.push(structuredClone(req));
      if (this.embedError) throw this.embedError;
      const inputs = (Array.isArray(req.input) ? req.input : [req.input]) as string[];
      const tokens = inputs.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length, 0);
      return {
        object: 'list',
        model: String(req.model),
        data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: [t.length, index, 1, 0] })),
        usage: { prompt_tokens: tokens, total_tokens: tokens, extra: { prefill_tokens_per_s: 100 } },
      };
    },
  };

  /**
   * With `enable_thinking: false`, web-llm 0.2.86 pushes the empty think block it pre-fills into the
   * output ids (`forwardPrefill`), so the first delta it streams starts with it.
   */
  static readonly EMPTY_THINK = '<think>\n\n</think>\n\n';

  private async *stream(req: ChatCompletionRequestStreaming): AsyncGenerator<ChatCompletionChunk> {
    let n = 0;
    let prefix = req.extra_body?.enable_thinking === false ? FakeMLC.EMPTY_THINK : '';
    const pipeline = this.loadedModelIdToPipeline.get(req.model ?? '');
    if (pipeline && this.contextTokens) pipeline.filledKVCacheLength = this.contextTokens;
    for (let i = 0; this.endless || i < this.reply.length; i++) {
      if (this.interrupted) break;
      if (this.stepMs) await new Promise((r) => setTimeout(r, this.stepMs));
      if (this.streamError && i === 1) throw this.streamError;
      if (this.loseDeviceAtStep === i) {
        this.loseDevice();
        throw new Error('Cannot run a function of a disposed module.');
      }
      n++;
      this.stepsDone++;
      const step = this.endless ? { text: `t${i} ` } : (this.reply[i] as Step);
      yield chunk(prefix && step.text !== undefined ? { ...step, text: prefix + step.text } : step);
      if (step.text !== undefined) prefix = '';
      if (pipeline && this.contextTokens) pipeline.filledKVCacheLength++;
    }
    yield chunk({ finish: this.interrupted ? 'abort' : this.finish });
    yield {
      ...chunk({}),
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: n, total_tokens: 12 + n, extra: USAGE_EXTRA },
    };
  }
}

export function setup(opts: Partial<WebLLMEngineOptions> = {}) {
  const fakes: FakeMLC[] = [];
  const configs: MLCEngineConfig[] = [];
  const engine = new WebLLMEngine({
    appConfig,
    gpu: async () => ({}),
    xgrammar,
    createEngine: (config) => {
      configs.push(config);
      const f = new FakeMLC(config);
      fakes.push(f);
      return f;
    },
    ...opts,
  });
  const fake = () => {
    const f = fakes[0];
    if (!f) throw new Error('engine not created');
    return f;
  };
  return { engine, fake, fakes, configs };
}

/** A plain engine request for the web-llm engine's default model. */
export function request(over: Partial<GenerateRequest> = {}): GenerateRequest {
  return generateRequest({ model: LLAMA, ...over });
}

export async function collect(it: AsyncIterable<EngineChunk>): Promise<EngineChunk[]> {
  const out: EngineChunk[] = [];
  for await (const c of it) out.push(c);
  return out;
}

export async function rejection(p: Promise<unknown> | AsyncIterable<unknown>): Promise<ApiError> {
  try {
    if (p instanceof Promise) await p;
    else for await (const _ of p) void _;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected a rejection');
}

export const text = (chunks: EngineChunk[]) =>
  chunks.flatMap((c) => (c.type === 'text' ? [c.delta] : [])).join('');
export const done = (chunks: EngineChunk[]) => chunks.find((c) => c.type === 'done');
