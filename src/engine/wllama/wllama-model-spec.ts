/**
 * What a page may say about GGUF models and the llama.cpp engine's bounds. A leaf with no import of
 * `@wllama/wllama`: these types reach `startIntab`'s declarations, and wllama's own declarations
 * need Node's types, which would break apps that type-check libraries (`skipLibCheck: false`).
 */

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
  /**
   * Threads for the CPU backend; default: one core fewer than the machine has (at least 1) when the
   * page is cross-origin isolated, else 1 (why: README, Performance).
   */
  threads?: number;
  /**
   * web-llm's id for the same model (`Qwen3-0.6B-q4f16_1-MLC`): the id is then served by web-llm
   * where WebGPU can run that build and by this GGUF elsewhere (see `engine`).
   */
  webllm?: string;
  /** With `webllm`: `auto` (default) picks per machine; `web-llm` or `wllama` fixes the engine. */
  engine?: 'auto' | 'web-llm' | 'wllama';
  /**
   * Extra llama.cpp load parameters, passed through to wllama's `loadModel` (advanced; wllama's
   * `LoadModelParams`, typed loosely here so that intab's declarations never load wllama's, which
   * need Node's types).
   */
  loadOptions?: Record<string, unknown>;
}

/** The engine's bounds a page may set (see {@link WllamaEngineOptions}). */
export interface WllamaBounds {
  /** A load fails when the download or llama.cpp makes no progress for this long (ms). Default 120 000. */
  loadTimeoutMs?: number;
  /**
   * A generation fails when llama.cpp produces no token for this long (ms), the first token being
   * allowed this long per 512-token prompt batch it reads before it (up to `maxFirstTokenMs`); the
   * instance is then discarded and the next request starts a new one. Default 60 000.
   */
  stallTimeoutMs?: number;
  /** How many models stay loaded at once (least recently used goes first). Default 2. */
  maxLoaded?: number;
  /**
   * Requests that may wait for llama.cpp at once (it runs one at a time); one more is a 429
   * `rate_limit_exceeded` with `retry-after`. Default 16, as on web-llm.
   */
  maxQueue?: number;
  /**
   * The most the first token may take (ms), however long the prompt: the per-batch allowance of
   * `stallTimeoutMs` stops growing here (never below `stallTimeoutMs`). Default 300 000.
   */
  maxFirstTokenMs?: number;
}
