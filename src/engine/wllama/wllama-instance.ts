/**
 * One loaded GGUF model: a `Wllama` (which runs llama.cpp in a worker of its own), what intab read
 * from the GGUF, and llama.cpp's log. An instance whose worker crashed or stopped answering is
 * `dead`: the engine drops it and the next request loads a new one.
 */
import type { ChatCompletionChunk, LoadModelParams } from '@wllama/wllama/esm/index.js';
import type { ModelFamily } from '../tool-formats/model-family';
import { detectFamily } from './gguf-family';
import { type GgufHeader, metaNumber, metaString } from './gguf-header';
import { loadedTemplate, publishedDefaults, templateHasToolRole, templateReadsTools } from './gguf-template';
import { longestTokenBytes } from './limits';
import type { LlamaLog } from './llama-log';
import { invalidUtf8Tokens, unsafeUtf8Tokens } from './utf8-tokens';
import type { WasmBuild } from './wasm-build';
import type { WllamaLike } from './wllama-options';
import type { ModelRuntime } from './wllama-request';

/** What the GGUF says about itself, read before llama.cpp loads it. */
export interface GgufFacts extends ModelRuntime {
  architecture: string;
  name: string | null;
  /** `embeddings` when the GGUF declares a pooling type (a sentence-embedding model). */
  kind: 'chat' | 'embeddings';
  /** Whether the GGUF names its own pooling type. */
  pooling: boolean;
  trainedContext: number | null;
  /**
   * The chat template llama.cpp is loaded with, where it is not the GGUF's `tokenizer.chat_template`
   * (a GGUF that also has `tokenizer.chat_template.tool_use`: see `loadedTemplate`); null otherwise.
   */
  chatTemplate: string | null;
  /**
   * The most bytes of input one token can cover (see `tokenFloor`): the longest token as spelled,
   * times 4 for tokenizers that normalize text first (BERT's and T5's, which can shrink it); null
   * without a vocabulary.
   */
  maxTokenBytes: number | null;
}

/** Tokenizers that read text as written: a token never covers more bytes than its spelling has. */
const VERBATIM_TOKENIZERS = new Set(['llama', 'gpt2']);

/** Architectures that only embed (encoders); decoders with a pooling type count too. */
const EMBEDDING_ARCHS = new Set([
  'bert',
  'nomic-bert',
  'nomic-bert-moe',
  'jina-bert-v2',
  'jina-bert-v3',
  't5encoder',
  'modern-bert',
]);

/**
 * The facts intab needs from a GGUF header: family (from the chat template, else the name), the
 * tokens to keep out of logprobs, whether it embeds, its trained context.
 *
 * @example
 * ggufFacts(await readGgufHeader(file), 'tiny').family.id; // 'llama3'
 */
export function ggufFacts(header: GgufHeader, modelId: string): GgufFacts {
  const architecture = metaString(header, 'general.architecture') ?? 'unknown';
  const name = metaString(header, 'general.name') ?? null;
  const tokens = header.metadata.get('tokenizer.ggml.tokens');
  const vocab = Array.isArray(tokens) ? tokens.filter((t): t is string => typeof t === 'string') : [];
  const pooling = header.metadata.has(`${architecture}.pooling_type`);
  const tokenizer = metaString(header, 'tokenizer.ggml.model');
  const defaultTemplate = metaString(header, 'tokenizer.chat_template') ?? null;
  const toolUse = metaString(header, 'tokenizer.chat_template.tool_use') ?? null;
  // The tool_use template is the family's fingerprint (Hermes' default is plain ChatML).
  const template = toolUse ?? defaultTemplate;
  return {
    pooling,
    architecture,
    name,
    family: withTemplate(detectFamily({ chatTemplate: template, name, id: modelId }), template),
    chatTemplate: loadedTemplate(defaultTemplate, toolUse),
    invalidUtf8: invalidUtf8Tokens(vocab, tokenizer),
    unsafeUtf8: unsafeUtf8Tokens(vocab, tokenizer),
    kind: pooling || EMBEDDING_ARCHS.has(architecture) ? 'embeddings' : 'chat',
    trainedContext: metaNumber(header, `${architecture}.context_length`) ?? null,
    maxTokenBytes: coverBytes(vocab, tokenizer),
  };
}

/** See `GgufFacts.maxTokenBytes`. */
function coverBytes(vocab: string[], tokenizer: string | undefined): number | null {
  const longest = longestTokenBytes(vocab);
  if (longest === null) return null;
  return VERBATIM_TOKENIZERS.has(tokenizer ?? '') ? longest : 4 * longest;
}

/**
 * The family as the GGUF's template renders it: whether the template writes tools and calls (a
 * family known by its name only may have a template that reads neither; its results then go as user
 * turns when it has no tool role), and the variables that keep the published rendering.
 */
function withTemplate(family: ModelFamily, template: string | null): ModelFamily {
  if (template === null) return family;
  const kwargs = publishedDefaults(template);
  const reads = templateReadsTools(template);
  return {
    ...family,
    templateWritesTools: reads,
    ...(!reads && family.resultRole === 'tool' && !templateHasToolRole(template)
      ? { resultRole: 'user' as const }
      : {}),
    ...(Object.keys(kwargs).length > 0 ? { templateKwargs: kwargs } : {}),
  };
}

/** How llama.cpp was asked to run, and where it really runs. */
export interface InstanceRuntime {
  device: 'cpu' | 'webgpu';
  /** Which llama.cpp wasm runs it: one of intab's SIMD builds or wllama's stock one (wasm-build.ts). */
  wasm: WasmBuild;
  /** The device asked for, when llama.cpp ended up elsewhere (WebGPU unavailable in its worker). */
  requested: 'cpu' | 'webgpu';
  threads: number;
  multithread: boolean;
  contextSize: number;
}

/**
 * @example
 * const inst = new WllamaInstance('tiny', wllama, log, facts, runtime);
 * if (inst.dead) …
 */
export class WllamaInstance {
  /** Why the instance may not be used again, or null while it is healthy. */
  dead: string | null = null;
  lastUsed = Date.now();

  constructor(
    readonly modelId: string,
    readonly wllama: WllamaLike,
    readonly log: LlamaLog,
    readonly facts: GgufFacts,
    readonly runtime: InstanceRuntime,
  ) {}

  /**
   * Ends the instance: terminates its llama.cpp worker (wllama's `exit` terminates, it does not ask),
   * so a hung worker stops burning a core. Idempotent.
   */
  kill(reason: string): void {
    if (this.dead) return;
    this.dead = reason;
    // One line per instance ended: a reload is never silent (the e2e tests count these).
    console.info(`[intab] wllama '${this.modelId}': llama.cpp instance ended (${reason})`);
    void Promise.resolve()
      .then(() => this.wllama.exit())
      .catch(() => {});
  }
}

/** The chunk fields the engine reads beyond wllama's typings (llama.cpp's timings). */
export type WllamaChunk = ChatCompletionChunk & {
  timings?: { cache_n: number; prompt_n: number; predicted_n: number };
};

/**
 * llama.cpp's threads where a model names none: one core fewer than the machine has (at least 1) when
 * the page is cross-origin isolated (SharedArrayBuffer carries llama.cpp's threads), else 1.
 *
 * Why not every core (issue 23): llama.cpp's threads meet at a busy-waiting barrier about 200 times a
 * token. With every core taken, the page, the service worker and intab's own worker deschedule one
 * of them, and its partners spin a whole time slice at each barrier; longer attention steps at a 4k
 * context make that likelier. Measured on 2 loaded cores (README, Performance): 2 threads decoded
 * 2.5 / 1.5 / 0.8 tok/s after 128 / 1k / 4k-token prompts where 1 thread held 8.8 / 5.2 / 2.3. wllama
 * exposes no spin/poll count and no separate thread count for reading the prompt, so leaving a core
 * free is the lever.
 *
 * @example
 * loadParams({ contextSize: 4096, device: 'cpu', threads: spec.threads ?? defaultThreads(), embeddings: false });
 */
export function defaultThreads(): number {
  if (!(globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated) return 1;
  const cores = globalThis.navigator?.hardwareConcurrency ?? 1;
  return Math.max(1, Math.floor(cores) - 1);
}

/**
 * KV cache type and attention kernel on the CPU, chosen by measurement (issue 23; README,
 * Performance): an f32 KV cache with flash attention off. wasm has no f16 arithmetic, so flash
 * attention over an f16 cache converts every cached element at every step: on the bench model at 1
 * thread, decode after a 4k prompt went from 2.3 tok/s (f16, flash attention on: llama.cpp's
 * default) to 7.2, and after 128 tokens from 8.8 to 14.0. The cost is memory: 4 bytes per element
 * instead of 2 (the bench model: 32 KiB a token instead of 16), and without flash attention a KQ
 * buffer of `n_ctx × n_ubatch × heads × 4` bytes while a prompt is read. A model's `loadOptions`
 * override both (`cache_type_k`/`cache_type_v: 'f16'` halves the cache of a big model). WebGPU keeps
 * llama.cpp's defaults: not measured there.
 */
export const CPU_ATTENTION = { cache_type_k: 'f32', cache_type_v: 'f32', flash_attn: false } as const;

/**
 * The load parameters intab sets: Jinja templates, raw output (intab splits reasoning and calls
 * itself), a bounded prompt batch (each llama.cpp step stays short, so a stall is noticed), the
 * device and threads chosen, and on the CPU the measured KV cache and attention settings.
 *
 * @example
 * loadParams({ contextSize: 4096, device: 'cpu', threads: 2, embeddings: false });
 */
export function loadParams(opts: {
  contextSize: number;
  device: 'cpu' | 'webgpu';
  threads: number;
  /** `gguf`: embeddings with the GGUF's own pooling; `mean`: a decoder made to embed by mean pooling. */
  embeddings: false | 'gguf' | 'mean';
  /** The chat template to load instead of the GGUF's own (see `GgufFacts.chatTemplate`). */
  chatTemplate?: string | null;
  extra?: Partial<LoadModelParams>;
}): LoadModelParams {
  return {
    n_ctx: opts.contextSize,
    n_batch: 512,
    n_ubatch: 512,
    n_threads: opts.threads,
    // 0 also keeps wllama from initialising WebGPU at all in its worker.
    n_gpu_layers: opts.device === 'webgpu' ? 999 : 0,
    jinja: true,
    reasoning_format: 'none',
    skip_chat_parsing: true,
    ...(opts.embeddings ? { embeddings: true } : {}),
    ...(opts.embeddings === 'mean' ? { pooling_type: 'mean' as const } : {}),
    ...(opts.device === 'cpu' ? CPU_ATTENTION : {}),
    ...(opts.chatTemplate ? { chat_template: opts.chatTemplate } : {}),
    ...opts.extra,
  };
}
