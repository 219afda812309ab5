/**
 * The real engine: a local model on WebGPU through `@mlc-ai/web-llm`. It owns an `MLCEngine`
 * directly (inside the worker) rather than web-llm's worker handler, whose errors arrive as strings.
 */
import type {
  AppConfig,
  ChatCompletionChunk,
  ChatOptions,
  InitProgressReport,
  MLCEngineConfig,
  ModelRecord,
} from '@mlc-ai/web-llm';
import {
  ApiError,
  invalidRequest,
  modelNotFound,
  rateLimited,
  serverError,
  serviceUnavailable,
  unsupportedModel,
} from '../../common/api-error';
import { allowedTools } from '../tool-formats/request-plan';
import type {
  ChatMessage,
  EmbedResult,
  Engine,
  EngineChunk,
  FunctionToolSpec,
  GenerateRequest,
  LoadProgress,
  ModelInfo,
} from '../types';
import { convConfigFor } from './webllm-conv-templates';
import { installByteMeter } from './webllm-download-meter';
import type { MLCEngineLike, WebLLMEngineOptions } from './webllm-engine-options';
import { mapGenerateError, mapLoadError } from './webllm-errors';
import { deadline, EXPIRED, Gate, StallTimeoutError, withStallTimeout } from './webllm-gate';
import { boundJsonWhitespace, checkSchemas, requireXGrammar, type XGrammarLike } from './webllm-grammar';
import { inlineImageUrls } from './webllm-images';
import { dedupeRecords, isEmbeddingRecord, toModelInfos } from './webllm-models';
import { modelsToLoad, pairKey } from './webllm-pairing';
import { ReplyAssembler } from './webllm-reply';
import { planChatRequest, toTokenLogprobs } from './webllm-request';
import {
  countChatTokens,
  filledContext,
  isPipelineLoaded,
  loadedTokenizer,
  type TextEncoderLike,
} from './webllm-tokens';
import { probeWebGPU, requireFeatures } from './webllm-webgpu';

export type { MLCEngineLike, WebLLMEngineOptions } from './webllm-engine-options';

type WebLLM = typeof import('@mlc-ai/web-llm');

const DEFAULT_LOAD_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_QUEUE = 16;
const DEFAULT_GENERATION_STALL_MS = 120_000;
/** How long `interruptGenerate` may take to wind web-llm down before the next job may start anyway. */
const DRAIN_LIMIT_MS = 10_000;

interface PendingLoad {
  promise: Promise<void>;
  listeners: Set<(p: LoadProgress) => void>;
}

/**
 * web-llm behind the Engine interface. Loads and generations run one at a time.
 *
 * @example
 * const engine = await new WebLLMEngine({ cacheBackend: 'indexeddb' }).init();
 * await engine.load('Qwen3-0.6B-q4f16_1-MLC', (p) => console.log(p.text));
 * for await (const chunk of engine.generate(req, signal)) …
 */
export class WebLLMEngine implements Engine {
  private records: ModelRecord[] | null;
  private lib: Promise<WebLLM> | null = null;
  private mlc: Promise<MLCEngineLike> | null = null;
  /** The models web-llm holds: one, or a chat model and an embedding model side by side. */
  private loaded: string[] = [];
  /** Pairs whose joint `reload` the GPU refused: each loads alone from then on. */
  private readonly refusedPairs = new Set<string>();
  private readonly pending = new Map<string, PendingLoad>();
  private readonly gate = new Gate();
  /** Requests waiting for the GPU: for their turn at the gate, or for their model's load. */
  private waiting = 0;
  private onReport: ((r: InitProgressReport) => void) | null = null;

  constructor(private readonly opts: WebLLMEngineOptions = {}) {
    this.records = opts.appConfig
      ? dedupeRecords([...opts.appConfig.model_list, ...(opts.models ?? [])])
      : null;
  }

  /**
   * Imports web-llm's prebuilt model list when no `appConfig` was given; `models()` lists it after.
   * Call it before routing by `models()` (CompositeEngine does).
   *
   * @example
   * const engine = await new WebLLMEngine().init();
   */
  async init(): Promise<this> {
    await this.modelRecords();
    return this;
  }

  /**
   * The configured models. Without an `appConfig`, web-llm's prebuilt list needs the module, which
   * `models()` (sync) cannot await: before `init()` resolves it lists only the extra `models` and
   * starts the import, so a later call sees the full list.
   */
  models(): ModelInfo[] {
    if (!this.records) void this.init().catch(() => {});
    return toModelInfos(this.records ?? this.opts.models ?? []);
  }

  /**
   * What can be known without downloading: the model exists, a WebGPU adapter is there, and it has
   * the features the model's shaders need (f16 models need `shader-f16`, which web-llm checks only
   * after fetching the model's config). The core calls this before any header goes out.
   */
  async preflight(modelId: string, req?: GenerateRequest): Promise<void> {
    const record = await this.recordOf(modelId);
    this.refuseWhenFull(modelId);
    if (req) await this.checkGrammar(req);
    if (this.loaded.includes(modelId)) return;
    requireFeatures(await probeWebGPU(this.opts.gpu), requiredFeatures(record), modelId);
  }

  /**
   * A JSON schema web-llm's xgrammar cannot compile fails only inside prefill, after the headers:
   * compiled here first, so it is a 400. Where web-xgrammar cannot be loaded (a chunk missing
   * offline) a request with a grammar is a 503 here, before any header, never run unbounded.
   */
  private async checkGrammar(req: GenerateRequest): Promise<void> {
    const tools = allowedTools(req.tools, req.toolChoice);
    if (req.format.type === 'text' && tools.length === 0) return;
    await checkSchemas(await this.xgrammar(), req.format, tools);
  }

  private xgrammar(): Promise<XGrammarLike> {
    return requireXGrammar(this.opts.xgrammar);
  }

  load(modelId: string, onProgress?: (p: LoadProgress) => void): Promise<void> {
    const shared = this.pending.get(modelId);
    if (shared) {
      if (onProgress) shared.listeners.add(onProgress);
      return this.queued(shared.promise);
    }
    if (this.loaded.includes(modelId) && this.pending.size === 0) return Promise.resolve();
    const entry: PendingLoad = {
      promise: Promise.resolve(),
      listeners: new Set(onProgress ? [onProgress] : []),
    };
    entry.promise = (async () => {
      const release = await this.gate.acquire();
      try {
        await this.loadLocked(modelId, entry.listeners);
      } finally {
        release?.();
        this.pending.delete(modelId);
      }
    })();
    this.pending.set(modelId, entry);
    return this.queued(entry.promise);
  }

  async *generate(req: GenerateRequest, signal: AbortSignal): AsyncGenerator<EngineChunk> {
    const record = await this.recordOf(req.model);
    if (isEmbeddingRecord(record)) throw unsupportedModel(req.model, 'chat');
    const info = toModelInfos([record])[0];
    const messages = await inlineImageUrls(req.messages, globalThis.location?.href);
    const plan = planChatRequest({ ...req, messages }, { vision: info?.vision ?? false });
    const format = plan.body.response_format;
    if (format) plan.body.response_format = await boundJsonWhitespace(await this.xgrammar(), format);
    const release = await this.queued(this.gate.acquire(signal));
    if (!release) return;
    const stallMs = this.opts.generationStallMs ?? DEFAULT_GENERATION_STALL_MS;
    let mlc: MLCEngineLike | undefined;
    let stream: AsyncIterator<ChatCompletionChunk> | undefined;
    let finished = false;
    try {
      await this.ensureLoaded(req.model);
      mlc = await this.engine();
      const aborted = abortion(signal);
      stream = (await this.mapErrors(mlc.chat.completions.create(plan.body), req.model))[
        Symbol.asyncIterator
      ]();
      const tokenizer = loadedTokenizer(mlc, req.model);
      const reply = new ReplyAssembler(plan.reply, tokenizer ? (t) => tokenizer.encode(t).length : undefined);
      let promptTokens: number | null = null;
      let usage: ChatCompletionChunk['usage'];
      let finishReason: string | null | undefined;
      for (;;) {
        const next = stream.next();
        next.catch(() => {}); // a step abandoned on abort may still reject later
        const limit = deadline(stallMs);
        const step = await Promise.race([this.mapErrors(next, req.model, mlc), aborted, limit.expired]);
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
      if (mlc && stream && !finished) void this.stop(mlc, stream).finally(release);
      else release();
    }
  }

  /**
   * Embeds through web-llm's `embeddings.create` with an embedding model (`model_type` 1), loading
   * it first (beside the chat model where memory allows). web-llm cannot shorten its vectors,
   * so `dimensions` is a 400, as OpenAI answers for its models that cannot either.
   */
  async embed(modelId: string, inputs: string[], dimensions?: number): Promise<EmbedResult> {
    const record = await this.recordOf(modelId);
    if (!isEmbeddingRecord(record)) throw unsupportedModel(modelId, 'embeddings');
    if (dimensions !== undefined) {
      throw invalidRequest(
        'dimensions',
        `The model '${modelId}' does not support specifying dimensions.`,
        'unsupported_value',
      );
    }
    const release = await this.queued(this.gate.acquire());
    try {
      await this.ensureLoaded(modelId);
      const mlc = await this.engine();
      if (!mlc.embeddings) throw serverError('This web-llm engine has no embeddings API.');
      const res = await this.mapErrors(mlc.embeddings.create({ input: inputs, model: modelId }), modelId);
      const byIndex = [...res.data].sort((a, b) => a.index - b.index);
      return { vectors: byIndex.map((d) => d.embedding), tokens: res.usage.prompt_tokens };
    } finally {
      release?.();
    }
  }

  async countsExactly(modelId: string): Promise<boolean> {
    return (await this.tokenizerOf(modelId)) !== null;
  }

  async countTokens(
    modelId: string,
    messages: ChatMessage[],
    tools: FunctionToolSpec[] = [],
  ): Promise<number> {
    return countChatTokens(modelId, messages, tools, await this.tokenizerOf(modelId));
  }

  /** The tokenizer of `modelId` when it is the loaded model; null before its first load. */
  private async tokenizerOf(modelId: string): Promise<TextEncoderLike | null> {
    const mlc = this.loaded.includes(modelId) && this.mlc ? await this.mlc : null;
    return mlc ? loadedTokenizer(mlc, modelId) : null;
  }

  /** Counts the caller as waiting for the GPU until `wait` settles. */
  private async queued<T>(wait: Promise<T>): Promise<T> {
    this.waiting++;
    try {
      return await wait;
    } finally {
      this.waiting--;
    }
  }

  /**
   * OpenAI's 429 when `maxQueue` requests already wait: one GPU serves one request at a time, and
   * an unbounded queue would hold every later request for minutes, past the service worker's bounds.
   */
  private refuseWhenFull(modelId: string): void {
    const max = this.opts.maxQueue ?? DEFAULT_MAX_QUEUE;
    if (this.waiting < max) return;
    throw rateLimited(
      `Rate limit reached for ${modelId} on queued requests: Limit ${max}, Used ${this.waiting}, Requested 1. Please try again in ${Math.ceil(this.gate.averageTurnMs / 1000)}s.`,
      this.gate.averageTurnMs,
    );
  }

  /** `modelId`'s record, or OpenAI's 400 `model_not_found`. */
  private async recordOf(modelId: string): Promise<ModelRecord> {
    const record = (await this.modelRecords()).find((r) => r.model_id === modelId);
    if (!record) throw modelNotFound(modelId);
    return record;
  }

  /**
   * Makes `modelId` the loaded model, the gate already held. web-llm unloads by itself when the GPU
   * device is lost between requests, so a model it no longer holds is loaded again.
   */
  private async ensureLoaded(modelId: string): Promise<void> {
    if (this.loaded.includes(modelId) && this.mlc && !isPipelineLoaded(await this.mlc, modelId))
      this.loaded = [];
    if (!this.loaded.includes(modelId)) await this.loadLocked(modelId, new Set());
  }

  /**
   * Maps web-llm's errors; a lost GPU device also forgets the engine, so the next request starts a
   * fresh MLCEngine on a new device and loads the model again. A device lost while decoding reaches
   * us as whatever the disposed runtime throws (web-llm's `device.lost` handler unloads every
   * pipeline; it raises `DeviceLostError` only from `reload`), so a failure that leaves `mlc`
   * without the model's pipeline is a lost device too.
   */
  private async mapErrors<T>(p: Promise<T>, modelId: string, mlc?: MLCEngineLike): Promise<T> {
    try {
      return await p;
    } catch (err) {
      let mapped = mapGenerateError(err);
      if (mapped.status === 500 && mlc && !isPipelineLoaded(mlc, modelId)) {
        mapped = serviceUnavailable(
          'The GPU device was lost while generating (often out of GPU memory).',
          'webgpu_device_lost',
        );
      }
      if (mapped.code === 'webgpu_device_lost' || mapped.code === 'model_not_loaded') {
        this.loaded = [];
        if (mapped.code === 'webgpu_device_lost') this.mlc = null;
        throw new ApiError(
          503,
          'server_error',
          mapped.code,
          null,
          `${mapped.message} The model '${modelId}' will load again on the next request.`,
        );
      }
      throw mapped;
    }
  }

  /**
   * Loads `modelId`, the gate already held: unknown id, then WebGPU, then the download. An embedding
   * model loads beside the chat model (and a chat model beside the embedding model) where memory
   * allows, so neither evicts the other; a pair the GPU refuses loads the requested model alone.
   */
  private async loadLocked(modelId: string, listeners: Set<(p: LoadProgress) => void>): Promise<void> {
    const record = await this.recordOf(modelId);
    requireFeatures(await probeWebGPU(this.opts.gpu), requiredFeatures(record), modelId);
    if (this.loaded.includes(modelId)) return;
    const records = await this.modelRecords();
    const loaded = records.filter((r) => this.loaded.includes(r.model_id));
    const ids = modelsToLoad(record, loaded, {
      ...(this.opts.vramBudgetMB !== undefined ? { budgetMB: this.opts.vramBudgetMB } : {}),
      refused: this.refusedPairs,
    });
    try {
      await this.reloadModels(ids, modelId, listeners);
    } catch (err) {
      if (ids.length === 1 || (err instanceof ApiError && err.code === 'model_load_timeout')) throw err;
      this.refusedPairs.add(pairKey(ids));
      await this.reloadModels([modelId], modelId, listeners);
    }
  }

  /** web-llm's `reload` of `ids` (unloading what is loaded first), errors named after `modelId`. */
  private async reloadModels(
    ids: string[],
    modelId: string,
    listeners: Set<(p: LoadProgress) => void>,
  ): Promise<void> {
    const mlc = await this.engine();
    if (this.loaded.length > 0) {
      this.loaded = [];
      await mlc.unload().catch(() => {}); // a failed unload must not block loading the next model
    }
    const timeoutMs = this.opts.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS;
    const meter = this.opts.byteMeter ?? installByteMeter(globalThis);
    let unwatch = (): void => {};
    try {
      await withStallTimeout((bump) => {
        // Silence is what fails a load: no byte received and no progress reported.
        unwatch = meter.watch(bump);
        this.onReport = (r) => {
          bump();
          const p: LoadProgress = { progress: Math.min(1, Math.max(0, r.progress)), text: r.text };
          for (const l of listeners) {
            try {
              l(p);
            } catch {
              // A listener's failure is the listener's; the load goes on.
            }
          }
        };
        if (ids.length > 1) {
          // web-llm wants one ChatOptions per model when it loads several.
          return mlc.reload(
            ids,
            ids.map((id) => chatOptionsFor(id) ?? {}),
          );
        }
        const options = chatOptionsFor(modelId);
        return options ? mlc.reload(modelId, options) : mlc.reload(modelId);
      }, timeoutMs);
    } catch (err) {
      if (!(err instanceof StallTimeoutError)) {
        const mapped = mapLoadError(err, modelId);
        if (mapped.code === 'webgpu_device_lost') this.mlc = null; // a fresh engine gets a fresh device
        throw mapped;
      }
      void Promise.resolve(mlc.unload()).catch(() => {}); // aborts web-llm's in-flight reload
      throw new ApiError(
        504,
        'server_error',
        'model_load_timeout',
        null,
        `Loading model '${modelId}' received no data and made no progress for ${timeoutMs} ms; check the network and try again.`,
      );
    } finally {
      unwatch();
      this.onReport = null;
    }
    this.loaded = ids;
  }

  /** Interrupts our generation and lets web-llm's stream finish, which releases its model lock. */
  private async stop(mlc: MLCEngineLike, stream: AsyncIterator<ChatCompletionChunk>): Promise<void> {
    try {
      await mlc.interruptGenerate();
    } catch {
      // Nothing more to stop.
    }
    const drained = Promise.resolve(stream.return?.()).catch(() => {});
    await Promise.race([drained, new Promise((r) => setTimeout(r, DRAIN_LIMIT_MS))]);
  }

  private engine(): Promise<MLCEngineLike> {
    this.mlc ??= (async () => {
      const config: MLCEngineConfig = {
        appConfig: await this.appConfig(),
        initProgressCallback: (r) => this.onReport?.(r),
        ...(this.opts.logLevel ? { logLevel: this.opts.logLevel } : {}),
      };
      const create =
        this.opts.createEngine ?? (async (c: MLCEngineConfig) => new (await this.webllm()).MLCEngine(c));
      const mlc = await create(config);
      mlc.setInitProgressCallback?.((r) => this.onReport?.(r));
      return mlc;
    })().catch((err: unknown) => {
      this.mlc = null;
      throw serviceUnavailable(
        `Could not start web-llm: ${err instanceof Error ? err.message : String(err)}`,
      );
    });
    return this.mlc;
  }

  private async appConfig(): Promise<AppConfig> {
    const base = this.opts.appConfig ?? (await this.webllm()).prebuiltAppConfig;
    const cacheBackend = this.opts.cacheBackend ?? base.cacheBackend;
    return { ...base, model_list: await this.modelRecords(), ...(cacheBackend ? { cacheBackend } : {}) };
  }

  private async modelRecords(): Promise<ModelRecord[]> {
    if (!this.records) {
      const prebuilt = (await this.webllm()).prebuiltAppConfig.model_list;
      this.records = dedupeRecords([...prebuilt, ...(this.opts.models ?? [])]);
    }
    return this.records;
  }

  private webllm(): Promise<WebLLM> {
    // Lazy: web-llm is 7 MB of JS and WASM glue that Node tests and the scripted path never need.
    this.lib ??= import('@mlc-ai/web-llm').catch((err: unknown) => {
      this.lib = null; // a chunk that failed to load (offline, say) may load on a later try
      throw err;
    });
    return this.lib;
  }
}

/**
 * The GPU features a record needs: its own `required_features`, or `shader-f16` for f16 builds
 * (MLC's `q4f16_1`, `q0f16`…), which not every prebuilt record declares.
 */
function requiredFeatures(record: ModelRecord): string[] {
  if (record.required_features) return record.required_features;
  return /q\d+f16/.test(`${record.model_id} ${record.model_lib}`) ? ['shader-f16'] : [];
}

/** The `reload` chat options that correct `modelId`'s conversation template; undefined for none. */
function chatOptionsFor(modelId: string): ChatOptions | undefined {
  const convConfig = convConfigFor(modelId);
  return convConfig ? { conv_config: convConfig } : undefined;
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
