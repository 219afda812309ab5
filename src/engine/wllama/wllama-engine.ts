/**
 * The llama.cpp engine: GGUF models on the CPU (or WebGPU) through `@wllama/wllama`, which runs
 * llama.cpp compiled to WebAssembly in a worker of its own. It needs no WebGPU, so it serves where
 * web-llm cannot (Firefox, Safari, GPUs without WebGPU) and runs any GGUF, not only web-llm builds.
 *
 * This class is the Engine face; each job lives in `./jobs` (loading, generation, embeddings,
 * token counting), all sharing one `WllamaModels` state and its gate.
 */
import { invalidRequest, serviceUnavailable } from '../../common/api-error';
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
import { withTimeout } from './chunk-queue';
import { preflightGrammar } from './grammar';
import { countTokens, embedInputs, generateChunks, LlamaStarter, WllamaLoader, WllamaModels } from './jobs';
import { LlamaLog } from './llama-log';
import type { WllamaEngineOptions, WllamaModelSpec } from './wllama-options';

/** Bound on listing the weight cache for `/v1/models`. */
const CACHE_LIST_MS = 5_000;

/**
 * GGUF models behind the Engine interface. One job (load, generation, count, embedding) reaches
 * llama.cpp at a time; every wait on llama.cpp is bounded, and an instance that crashes or stops
 * answering fails the request with llama.cpp's own words and is replaced on the next request.
 *
 * @example
 * const engine = new WllamaEngine({ models: [{ id: 'tiny', url: '/models/tiny.gguf' }], wasmUrl });
 * await engine.load('tiny', (p) => console.log(p.text));
 * for await (const chunk of engine.generate(req, signal)) …
 */
export class WllamaEngine implements Engine {
  private readonly state: WllamaModels;
  private readonly starter: LlamaStarter;
  private readonly loader: WllamaLoader;
  /** The engine's own log (downloads), kept for error messages. */
  private readonly log = new LlamaLog();

  constructor(opts: WllamaEngineOptions = {}) {
    this.state = new WllamaModels(opts);
    for (const spec of opts.models ?? []) this.addModel(spec);
    this.starter = new LlamaStarter(opts, this.log.logger);
    this.state.cacheKind = () => this.starter.fetcher.cacheKind?.() ?? null;
    this.loader = new WllamaLoader(this.state, this.starter);
  }

  /**
   * Registers (or replaces, by id) a GGUF model, e.g. one the user just picked. Returns its listing.
   *
   * @example
   * engine.addModel({ id: 'my-model', files: [file] });
   */
  addModel(spec: WllamaModelSpec): ModelInfo {
    if (!spec.url && !(spec.files && spec.files.length > 0)) {
      throw invalidRequest('url', `The model '${spec.id}' needs a url or files.`);
    }
    const { state } = this;
    const old = state.instances.get(spec.id);
    if (old) {
      old.kill('replaced');
      state.instances.delete(spec.id);
    }
    state.facts.delete(spec.id);
    state.registered.set(spec.id, { spec, created: Math.floor(Date.now() / 1000) });
    return state.info(spec.id) as ModelInfo;
  }

  /** Learns which URL models are in the weight cache, for `cached` in `/v1/models`. Never rejects. */
  async init(): Promise<void> {
    if (![...this.state.registered.values()].some((r) => r.spec.url)) return;
    await this.refreshCached();
  }

  models(): ModelInfo[] {
    return [...this.state.registered.keys()].map((id) => this.state.info(id) as ModelInfo);
  }

  async preflight(modelId: string, req?: GenerateRequest): Promise<void> {
    const { spec } = this.state.registration(modelId);
    // Before any header, so a streamed request past the cap gets its 429 status line too.
    this.state.turns.refuseWhenFull(modelId);
    if (req) await preflightGrammar(req);
    const missing = spec.device === 'webgpu' ? await this.starter.webGpuMissing() : null;
    if (missing) {
      throw serviceUnavailable(
        `The model '${modelId}' is configured for WebGPU, but llama.cpp's WebGPU backend cannot run in this browser: ${missing}. Use device 'auto' or 'cpu'.`,
        'webgpu_unavailable',
      );
    }
  }

  async load(modelId: string, onProgress?: (p: LoadProgress) => void): Promise<void> {
    this.state.registration(modelId);
    const live = this.state.instances.get(modelId);
    if (live && !live.dead && !this.state.pending.has(modelId)) return;
    await this.state.turns.queued(this.loader.shared(modelId, onProgress, true));
  }

  generate(req: GenerateRequest, signal: AbortSignal): AsyncGenerator<EngineChunk> {
    return generateChunks(this.state, this.loader, req, signal);
  }

  embed(modelId: string, inputs: string[], dimensions?: number, signal?: AbortSignal): Promise<EmbedResult> {
    return embedInputs(this.state, this.loader, modelId, inputs, dimensions, signal);
  }

  async countsExactly(modelId: string): Promise<boolean> {
    return this.state.liveInstance(modelId) !== null;
  }

  /** See `countTokens` in `./jobs`: an estimate before a load, a bound when it fits, else exact. */
  countTokens(
    modelId: string,
    messages: ChatMessage[],
    tools: FunctionToolSpec[] = [],
    opts: CountOptions = {},
  ): Promise<number> {
    return countTokens(this.state, modelId, messages, tools, opts);
  }

  private async refreshCached(): Promise<void> {
    try {
      this.state.cachedUrls = await withTimeout(
        this.starter.fetcher.cachedUrls(),
        CACHE_LIST_MS,
        'The weight cache',
      );
    } catch {
      // Unknown cache state lists models as not cached; nothing else depends on it.
    }
  }
}
