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
import type { ModelCacheKind } from './cache';
import type { WasmFetch } from './limits';
import type { SimdWasm, ThreadSupport, WasmBuild } from './wasm-build';
import type { WllamaBounds, WllamaModelSpec } from './wllama-model-spec';

/**
 * @example
 * new WllamaEngine({ models: [{ id: 'tiny', url: '/test-models/intab-tiny-random.gguf' }], wasmUrl });
 */
export interface WllamaEngineOptions extends WllamaBounds {
  models?: WllamaModelSpec[];
  /** The URL of wllama's `wllama.wasm` on the app's own origin (never a CDN). */
  wasmUrl?: string;
  /**
   * intab's llama.cpp build with ggml's wasm SIMD kernels and pthreads (wasm32, CPU): used for CPU
   * models that fit wasm32 where the worker is cross-origin isolated with `SharedArrayBuffer`;
   * `wasmUrl` (the stock build) for the rest and when the SIMD builds fail to start (wasm-build.ts).
   */
  simdWasm?: SimdWasm;
  /**
   * The same SIMD build without pthreads (no `SharedArrayBuffer` needed), always one thread: tried
   * after {@link simdWasm}, first where the worker has no `SharedArrayBuffer` (wasm-build.ts).
   */
  simdSingleThreadWasm?: SimdWasm;
  /** Whether the worker may run threads (isolated, with `SharedArrayBuffer`); tests pass fakes. */
  threadSupport?: () => ThreadSupport;
  /**
   * Fetches a SIMD build's files, checked before the build starts (limits/wasm-start.ts). Default:
   * `fetch`; tests pass fakes.
   */
  fetchWasm?: WasmFetch;
  /** `WebAssembly.validate`, asked whether the worker has wasm SIMD (wasm-build.ts); tests pass fakes. */
  validateWasm?: (bytes: Uint8Array<ArrayBuffer>) => boolean;
  /** Makes a `Wllama` running `build`; tests pass fakes. Default: a lazily imported `Wllama`. */
  createWllama?: (config: WllamaConfig, build: WasmBuild) => WllamaLike | Promise<WllamaLike>;
  /** Downloads a URL model into wllama's cache (cache/model-cache.ts), or finds it there; tests pass fakes. */
  fetchModel?: ModelFetcher;
  /** Whether WebGPU with `shader-f16` is there, for `device: 'auto'`. Default: asks `navigator.gpu`. */
  hasWebGpuF16?: () => Promise<boolean>;
  /** Whether the worker has JSPI, which wllama's WebGPU build needs. Default: `WebAssembly.Suspending`. */
  hasJspi?: () => boolean;
  /**
   * For tests and debugging: each chat generation logs the prompt llama.cpp read (its tokens,
   * detokenized) to the console (prompt-log.ts). Off by default: a prompt is the user's data.
   */
  logPrompts?: boolean;
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
  /** Drops `url`'s shards from the cache (a copy that is not a whole GGUF); the next fetch downloads. */
  forget?(url: string): Promise<void>;
  /** Where downloads are kept (cache/model-cache.ts), once the cache has opened; null before. */
  cacheKind?(): ModelCacheKind | null;
}

/** Chat completion parameters as intab sends them (llama.cpp reads more than wllama's typings list). */
export type WllamaChatParams = Omit<ChatCompletionParams, 'stream' | 'abortSignal' | 'logit_bias'> & {
  /** Token id → bias; `false` bans the token (llama.cpp's -infinity). */
  logit_bias?: Record<string, number | false>;
  stop?: string[];
  /** Alternatives (`top_probs`) from the candidates the samplers kept, as probabilities. */
  post_sampling_probs?: boolean;
  stream_options?: { include_usage: boolean };
  /** llama.cpp adds `__verbose` (with the prompt it read) to the final result (`logPrompts`). */
  verbose?: boolean;
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

export type { WllamaBounds, WllamaModelSpec } from './wllama-model-spec';
