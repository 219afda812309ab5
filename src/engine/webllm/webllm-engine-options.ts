/**
 * The web-llm engine's public shapes: its options and the slice of `MLCEngine` it drives.
 */
import type {
  AppConfig,
  ChatCompletionChunk,
  ChatCompletionRequestStreaming,
  ChatOptions,
  CreateEmbeddingResponse,
  EmbeddingCreateParams,
  InitProgressReport,
  LogLevel,
  MLCEngineConfig,
  ModelRecord,
} from '@mlc-ai/web-llm';
import type { ByteMeter } from './webllm-download-meter';
import type { XGrammarLike } from './webllm-grammar';
import type { GpuProbe } from './webllm-webgpu';

/**
 * The part of web-llm's `MLCEngine` this engine uses; tests pass a fake through `createEngine`.
 *
 * @example
 * new WebLLMEngine({ createEngine: (config) => new FakeMLC(config) });
 */
export interface MLCEngineLike {
  /** One model, or several side by side (one `ChatOptions` per model then). */
  reload(modelId: string | string[], chatOpts?: ChatOptions | ChatOptions[]): Promise<void>;
  unload(): Promise<void>;
  interruptGenerate(): Promise<void> | void;
  setInitProgressCallback?(cb: (report: InitProgressReport) => void): void;
  chat: {
    completions: {
      create(request: ChatCompletionRequestStreaming): Promise<AsyncIterable<ChatCompletionChunk>>;
    };
  };
  /** web-llm's embeddings API, for models whose record has `model_type` 1 (embedding). */
  embeddings?: {
    create(request: EmbeddingCreateParams): Promise<CreateEmbeddingResponse>;
  };
}

/**
 * @example
 * new WebLLMEngine({
 *   cacheBackend: 'indexeddb',
 *   models: [{ model: 'https://cdn.example/Qwen3-0.6B-MLC', model_id: 'my-qwen', model_lib: 'https://cdn.example/qwen.wasm' }],
 * });
 */
export interface WebLLMEngineOptions {
  /** Model list and cache settings; web-llm's `prebuiltAppConfig` when absent (loaded by `init()`). */
  appConfig?: AppConfig;
  /** Extra records, e.g. self-hosted weights: `{model, model_id, model_lib, overrides}` with your URLs. */
  models?: ModelRecord[];
  /** Where weights are cached: 'cache' (Cache API, web-llm's default), 'indexeddb', 'opfs', … */
  cacheBackend?: AppConfig['cacheBackend'];
  /** Makes the MLCEngine; defaults to `new MLCEngine(config)` from a lazily imported web-llm. */
  createEngine?: (config: MLCEngineConfig) => MLCEngineLike | Promise<MLCEngineLike>;
  /** How to find a GPU adapter; defaults to `navigator.gpu`. */
  gpu?: GpuProbe;
  /**
   * A load fails (504 `model_load_timeout`) when for this long (ms) no byte of its download arrives
   * and web-llm reports no progress. Default 120 000; 0 disables.
   */
  loadTimeoutMs?: number;
  /**
   * Most requests waiting for the GPU (for their turn, or for their model to load) at once; one more
   * is refused before any header with OpenAI's 429 `rate_limit_exceeded` and `retry-after`.
   * Default 16.
   */
  maxQueue?: number;
  /**
   * A generation that produces no token for this long (ms) is interrupted and fails with 504
   * `generation_stalled`, freeing the GPU for the requests behind it. The first token's wait covers
   * the prompt's prefill. Default 120 000; 0 disables.
   */
  generationStallMs?: number;
  /** Counts the bytes a load downloads; defaults to one installed on the worker's own `fetch` and Cache API. */
  byteMeter?: ByteMeter;
  logLevel?: LogLevel;
  /**
   * GPU memory (MB) a chat model and an embedding model may take together (their records'
   * `vram_required_MB`) to be loaded side by side. Absent: they are tried together, and a pair the
   * GPU refuses loads one at a time from then on.
   */
  vramBudgetMB?: number;
  /** Loads web-xgrammar, which checks schemas before headers and bounds JSON whitespace; lazy import by default. */
  xgrammar?: () => Promise<XGrammarLike>;
}
