/**
 * An engine whose code is fetched only when one of its models is used. The engine worker lists
 * every model at start-up, but web-llm (6 MB) and wllama (llama.cpp glue) are their own chunks: a
 * page that only ever talks to `scripted` downloads neither.
 */
import { ApiError, serviceUnavailable, unsupportedModel } from '../common/api-error';
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
} from './types';

export interface LazyEngineOptions<E extends Engine> {
  /** The models to list before the engine exists (cheap, no import). */
  listing: () => ModelInfo[];
  /** Imports and builds the engine; called once, on first use (again after a failure). */
  create: () => Promise<E>;
  /**
   * Build the engine during `init()` rather than on first use: for engines whose listing needs
   * the engine itself (whether weights are cached, say). Default false.
   */
  eager?: boolean;
  /** Names the engine in errors ("web-llm", "wllama"). */
  name: string;
}

/**
 * @example
 * const webllm = new LazyEngine({
 *   name: 'web-llm',
 *   listing: () => toModelInfos(WEBLLM_CATALOG),
 *   create: async () => new (await import('./webllm')).WebLLMEngine(opts),
 * });
 */
export class LazyEngine<E extends Engine = Engine> implements Engine {
  private built: Promise<E> | null = null;
  private ready: E | null = null;

  constructor(private readonly opts: LazyEngineOptions<E>) {}

  /** The engine, imported and built on first call. */
  engine(): Promise<E> {
    this.built ??= (async () => {
      try {
        const engine = await this.opts.create();
        await engine.init?.();
        this.ready = engine;
        return engine;
      } catch (err) {
        this.built = null; // a chunk that failed to load (offline, say) may load on a later try
        if (err instanceof ApiError) throw err;
        const why = err instanceof Error ? err.message : String(err);
        throw serviceUnavailable(`Could not start ${this.opts.name}: ${why}`);
      }
    })();
    return this.built;
  }

  async init(): Promise<void> {
    if (this.opts.eager || this.built) await this.engine();
  }

  models(): ModelInfo[] {
    return this.ready ? this.ready.models() : this.opts.listing();
  }

  missingReason(): string | null {
    return this.ready?.missingReason?.() ?? null;
  }

  async preflight(modelId: string, req?: GenerateRequest): Promise<void> {
    await (await this.engine()).preflight?.(modelId, req);
  }

  async load(modelId: string, onProgress?: (p: LoadProgress) => void): Promise<void> {
    await (await this.engine()).load(modelId, onProgress);
  }

  /** Never imports the engine: one not built yet has no load to stop. */
  async cancelLoad(modelId: string): Promise<boolean> {
    return (await this.ready?.cancelLoad?.(modelId)) ?? false;
  }

  async *generate(req: GenerateRequest, signal: AbortSignal): AsyncGenerator<EngineChunk> {
    yield* (await this.engine()).generate(req, signal);
  }

  async countTokens(
    modelId: string,
    messages: ChatMessage[],
    tools?: FunctionToolSpec[],
    opts?: CountOptions,
  ): Promise<number> {
    return (await this.engine()).countTokens(modelId, messages, tools, opts);
  }

  async countsExactly(modelId: string): Promise<boolean> {
    if (!this.ready) return false;
    return (await this.ready.countsExactly?.(modelId)) ?? true;
  }

  async embed(modelId: string, inputs: string[], dimensions?: number): Promise<EmbedResult> {
    const engine = await this.engine();
    if (!engine.embed) throw unsupportedModel(modelId, 'embeddings');
    return engine.embed(modelId, inputs, dimensions);
  }
}
