/**
 * The wllama engine's public shapes: a GGUF model as an app registers it, the engine's options, and
 * the slice of wllama's `Wllama` class the engine drives (tests pass fakes of it).
 */
import type {
  ChatCompletionChunk,
  ChatCompletionParams,
  LoadedContextInfo,
  LoadModelParams,
  Model,
  WllamaConfig,
} from '@wllama/wllama/esm/index.js';

/**
 * A GGUF model served by the wllama engine, from a URL or a file the user picked.
 *
 * @example
 * const tiny: WllamaModelSpec = { id: 'tiny', url: '/models/tiny.gguf', label: 'tiny random model' };
 * const split: WllamaModelSpec = { id: 'qwen', url: 'https://cdn.example/qwen-00001-of-00003.gguf' };
 * const picked: WllamaModelSpec = { id: 'mine', files: [fileFromInput] };
 */
export interface WllamaModelSpec {
  /** The id requests use as `model`. */
  id: string;
  /**
   * Where the GGUF is: an absolute URL or a path on the app's origin, ending in `.gguf`. A split
   * model is named by its first shard (`…-00001-of-00003.gguf`); every shard is fetched.
   */
  url?: string;
  /** The GGUF (or its shards) as Files or Blobs, e.g. from `<input type="file">`. */
  files?: Blob[];
  /** A human label for model pickers. */
  label?: string;
  /** What the model serves; detected from the GGUF (a pooling type means embeddings) when absent. */
  kind?: 'chat' | 'embeddings';
  /** Context size to run with (llama.cpp's `n_ctx`). Default 4096. */
  contextSize?: number;
  /**
   * Where to run: `cpu`, `webgpu`, or `auto` (the default: WebGPU when the adapter has
   * `shader-f16`, which llama.cpp's WebGPU backend needs, else the CPU).
   */
  device?: 'auto' | 'cpu' | 'webgpu';
  /** Threads for the CPU backend; default: every core when the page is cross-origin isolated, else 1. */
  threads?: number;
  /**
   * web-llm's id for the same model (`Qwen3-0.6B-q4f16_1-MLC`): the id is then served by web-llm
   * where WebGPU can run that build and by this GGUF elsewhere (see `engine`).
   */
  webllm?: string;
  /** With `webllm`: `auto` (default) picks per machine; `web-llm` or `wllama` fixes the engine. */
  engine?: 'auto' | 'web-llm' | 'wllama';
  /** Extra llama.cpp load parameters, passed through to wllama's `loadModel` (advanced). */
  loadOptions?: Partial<LoadModelParams>;
}

/**
 * @example
 * new WllamaEngine({ models: [{ id: 'tiny', url: '/test-models/intab-tiny-random.gguf' }], wasmUrl });
 */
export interface WllamaEngineOptions {
  models?: WllamaModelSpec[];
  /** The URL of wllama's `wllama.wasm` on the app's own origin (never a CDN). */
  wasmUrl?: string;
  /** A load fails when the download or llama.cpp makes no progress for this long (ms). Default 120 000. */
  loadTimeoutMs?: number;
  /**
   * A generation fails when llama.cpp produces nothing (no token, no prompt progress) for this long
   * (ms); the instance is then discarded and the next request starts a new one. Default 60 000.
   */
  stallTimeoutMs?: number;
  /** How many models stay loaded at once (least recently used goes first). Default 2. */
  maxLoaded?: number;
  /** Makes a `Wllama`; tests pass fakes. Default: a lazily imported `Wllama` with `wasmUrl`. */
  createWllama?: (config: WllamaConfig) => WllamaLike | Promise<WllamaLike>;
  /** Downloads a URL model into wllama's cache (OPFS), or finds it there; tests pass fakes. */
  fetchModel?: ModelFetcher;
  /** Whether WebGPU with `shader-f16` is there, for `device: 'auto'`. Default: asks `navigator.gpu`. */
  hasWebGpuF16?: () => Promise<boolean>;
}

/** Progress of a download: bytes so far of all shards. */
export type DownloadProgress = (p: { loaded: number; total: number }) => void;

/**
 * Where URL models come from: wllama's `ModelManager` (a cache in OPFS) by default.
 *
 * @example
 * const blobs = await fetcher.fetch('https://…/m.gguf', { progress, signal });
 */
export interface ModelFetcher {
  /** The shards of `url`, downloaded unless cached. */
  fetch(url: string, opts: { progress: DownloadProgress; signal: AbortSignal }): Promise<Blob[]>;
  /** The URLs whose every shard is in the cache. */
  cachedUrls(): Promise<Set<string>>;
}

/** Chat completion parameters as intab sends them (llama.cpp reads more than wllama's typings list). */
export type WllamaChatParams = Omit<ChatCompletionParams, 'stream' | 'abortSignal' | 'logit_bias'> & {
  /** Token id → bias; `false` bans the token (llama.cpp's -infinity). */
  logit_bias?: Record<string, number | false>;
  stop?: string[];
  /** Alternatives (`top_probs`) from the candidates the samplers kept, as probabilities. */
  post_sampling_probs?: boolean;
  stream_options?: { include_usage: boolean };
};

/** The part of wllama's `Wllama` the engine uses. */
export interface WllamaLike {
  loadModel(blobs: Blob[] | Model, params?: LoadModelParams): Promise<void>;
  /** Streams through `onData`; resolves when done, rejects with an AbortError once `abortSignal` aborts. */
  createChatCompletion(
    options: WllamaChatParams & {
      stream: true;
      abortSignal?: AbortSignal;
      onData: (chunk: ChatCompletionChunk) => void;
    },
  ): Promise<void>;
  createEmbedding(options: {
    input: string | string[];
  }): Promise<{ data: { index: number; embedding: number[] | string }[]; usage: { prompt_tokens: number } }>;
  getLoadedContextInfo(): LoadedContextInfo;
  isMultithread(): boolean;
  getNumThreads(): number;
  exit(): Promise<void>;
  setCompat?(compat: null): void;
}
