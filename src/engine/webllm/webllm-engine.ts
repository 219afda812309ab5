/**
 * The real engine: a local model on WebGPU through `@mlc-ai/web-llm`. It owns an `MLCEngine`
 * directly (inside the worker) rather than web-llm's worker handler, whose errors arrive as strings.
 * Each job lives in `./runtime`: loading, generation and embeddings; they take turns at the GPU
 * through the engines' {@link Turns}.
 */
import { callableTools } from '../tool-formats/request-plan';
import { Turns } from '../turns';
import type {
  ChatMessage,
  CountOptions,
  EmbedResult,
  Engine,
  EngineChunk,
  FunctionToolSpec,
  GenerateRequest,
  LoadProgress,
  ModelInfo,
} from '../types';
import { embedInputs, generateReply, loadLocked, requiredFeatures, WebLLMRuntime } from './runtime';
import type { WebLLMEngineOptions } from './webllm-engine-options';
import { checkSchemas } from './webllm-grammar';
import { loadCancelled } from './webllm-load-cancel';
import { toModelInfos } from './webllm-models';
import { countChatTokens } from './webllm-tokens';
import { probeWebGPU, requireFeatures } from './webllm-webgpu';

export type { MLCEngineLike, WebLLMEngineOptions } from './webllm-engine-options';

interface PendingLoad {
  promise: Promise<void>;
  listeners: Set<(p: LoadProgress) => void>;
  /** Aborted by {@link WebLLMEngine.cancelLoad}. */
  cancel: AbortController;
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
  private readonly runtime: WebLLMRuntime;
  private readonly pending = new Map<string, PendingLoad>();
  private readonly turns: Turns;

  constructor(private readonly opts: WebLLMEngineOptions = {}) {
    this.runtime = new WebLLMRuntime(opts);
    this.turns = new Turns(opts.maxQueue);
  }

  /**
   * Imports web-llm's prebuilt model list when no `appConfig` was given; `models()` lists it after.
   * Call it before routing by `models()` (CompositeEngine does).
   *
   * @example
   * const engine = await new WebLLMEngine().init();
   */
  async init(): Promise<this> {
    await this.runtime.modelRecords();
    return this;
  }

  /**
   * The configured models. Without an `appConfig`, web-llm's prebuilt list needs the module, which
   * `models()` (sync) cannot await: before `init()` resolves it lists only the extra `models` and
   * starts the import, so a later call sees the full list.
   */
  models(): ModelInfo[] {
    const records = this.runtime.knownRecords();
    if (!records) void this.init().catch(() => {});
    return toModelInfos(records ?? this.opts.models ?? []);
  }

  /**
   * What can be known without downloading: the model exists, a WebGPU adapter is there, and it has
   * the features the model's shaders need (f16 models need `shader-f16`, which web-llm checks only
   * after fetching the model's config). The core calls this before any header goes out.
   */
  async preflight(modelId: string, req?: GenerateRequest): Promise<void> {
    const record = await this.runtime.recordOf(modelId);
    this.turns.refuseWhenFull(modelId);
    if (req) await this.checkGrammar(req);
    if (this.runtime.loaded.includes(modelId)) return;
    requireFeatures(await probeWebGPU(this.opts.gpu), requiredFeatures(record), modelId);
  }

  /**
   * A JSON schema web-llm's xgrammar cannot compile fails only inside prefill, after the headers:
   * compiled here first, so it is a 400. Where web-xgrammar cannot be loaded (a chunk missing
   * offline) a request with a grammar is a 503 here, before any header, never run unbounded.
   */
  private async checkGrammar(req: GenerateRequest): Promise<void> {
    const tools = callableTools(req);
    if (req.format.type === 'text' && tools.length === 0) return;
    await checkSchemas(await this.runtime.xgrammar(), req.format, tools);
  }

  load(modelId: string, onProgress?: (p: LoadProgress) => void): Promise<void> {
    const shared = this.pending.get(modelId);
    if (shared) {
      if (onProgress) shared.listeners.add(onProgress);
      return this.turns.queued(shared.promise);
    }
    if (this.runtime.loaded.includes(modelId) && this.pending.size === 0) return Promise.resolve();
    const entry: PendingLoad = {
      promise: Promise.resolve(),
      listeners: new Set(onProgress ? [onProgress] : []),
      cancel: new AbortController(),
    };
    entry.promise = (async () => {
      // A load cancelled while it waits for its turn leaves the queue at once.
      const release = await this.turns.acquire(entry.cancel.signal);
      try {
        if (!release) throw loadCancelled(modelId);
        await loadLocked(this.runtime, modelId, entry.listeners, entry.cancel.signal);
      } finally {
        release?.();
        this.pending.delete(modelId);
      }
    })();
    this.pending.set(modelId, entry);
    return this.turns.queued(entry.promise);
  }

  /**
   * Stops the load of `modelId` in flight (queued or downloading): every caller waiting on it gets
   * a 503 `model_load_cancelled`, the model stays unloaded, and a later `load` starts again, finding
   * the shards web-llm had already cached. False when no such load is running.
   */
  async cancelLoad(modelId: string): Promise<boolean> {
    const entry = this.pending.get(modelId);
    if (!entry || entry.cancel.signal.aborted) return false;
    entry.cancel.abort();
    return true;
  }

  generate(req: GenerateRequest, signal: AbortSignal): AsyncGenerator<EngineChunk> {
    return generateReply(this.runtime, req, signal, () => this.turns.awaitTurn(signal));
  }

  /**
   * Embeds through web-llm's `embeddings.create` with an embedding model (`model_type` 1), loading
   * it first (beside the chat model where memory allows). web-llm cannot shorten its vectors,
   * so `dimensions` is a 400, as OpenAI answers for its models that cannot either.
   */
  embed(modelId: string, inputs: string[], dimensions?: number): Promise<EmbedResult> {
    return embedInputs(this.runtime, modelId, inputs, dimensions, () => this.turns.awaitTurn());
  }

  async countsExactly(modelId: string): Promise<boolean> {
    return (await this.runtime.tokenizerOf(modelId)) !== null;
  }

  async countTokens(
    modelId: string,
    messages: ChatMessage[],
    tools: FunctionToolSpec[] = [],
    opts: CountOptions = {},
  ): Promise<number> {
    return countChatTokens(modelId, messages, tools, await this.runtime.tokenizerOf(modelId), opts.shape);
  }
}
