import { modelNotFound, unsupportedModel } from '../common/api-error';
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

/** How long {@link CompositeEngine.init} waits for a member's model list before answering without it. */
export const MODEL_LIST_TIMEOUT_MS = 20_000;

/**
 * @example
 * new CompositeEngine([new ScriptedEngine(), new WebLLMEngine()], { initTimeoutMs: 5_000 });
 */
export interface CompositeEngineOptions {
  /** Bound on waiting for each member's `init()`; default {@link MODEL_LIST_TIMEOUT_MS}. */
  initTimeoutMs?: number;
}

/**
 * Serves several engines as one, routing each call by model id to the first engine that lists it.
 * The worker combines `scripted` (always there, no WebGPU) with web-llm's models this way. Every
 * routed call waits for the members' model lists first (bounded), so a model whose list was still
 * loading is never reported missing.
 *
 * @example
 * const engine = new CompositeEngine([new ScriptedEngine(), new WebLLMEngine()]);
 * await engine.init(); // web-llm's prebuilt models are listed now, or its failure is known
 */
export class CompositeEngine implements Engine {
  private ready: Promise<void> | null = null;
  /** Members whose list is incomplete, and why; a late success removes the entry. */
  private readonly missing = new Map<Engine, string>();

  constructor(
    private readonly engines: Engine[],
    private readonly opts: CompositeEngineOptions = {},
  ) {}

  /**
   * Waits for every member's `init()`, each at most `initTimeoutMs`. Never rejects: a member whose
   * list failed or is late is left out of `models()` (until it arrives) and named by {@link missingReason}.
   *
   * @example
   * await engine.init();
   * const missing = engine.missingReason(); // null, or why some models are not listed
   */
  init(): Promise<void> {
    this.ready ??= Promise.all(this.engines.map((e) => this.initMember(e))).then(() => {});
    return this.ready;
  }

  missingReason(): string | null {
    return this.missing.size === 0 ? null : [...this.missing.values()].join(' ');
  }

  models(): ModelInfo[] {
    const seen = new Set<string>();
    return this.engines.flatMap((e) => e.models()).filter((m) => !seen.has(m.id) && seen.add(m.id));
  }

  async preflight(modelId: string, req?: GenerateRequest): Promise<void> {
    await this.init();
    await this.route(modelId).preflight?.(modelId, req);
  }

  async load(modelId: string, onProgress?: (p: LoadProgress) => void): Promise<void> {
    await this.init();
    await this.route(modelId).load(modelId, onProgress);
  }

  /** Asks the engine that serves `modelId`; an id no engine serves has no load to stop. */
  async cancelLoad(modelId: string): Promise<boolean> {
    try {
      return (await this.route(modelId).cancelLoad?.(modelId)) ?? false;
    } catch {
      return false;
    }
  }

  async *generate(req: GenerateRequest, signal: AbortSignal): AsyncGenerator<EngineChunk> {
    await this.init();
    yield* this.route(req.model).generate(req, signal);
  }

  async countsExactly(modelId: string): Promise<boolean> {
    await this.init();
    return (await this.route(modelId).countsExactly?.(modelId)) ?? true;
  }

  async countTokens(
    modelId: string,
    messages: ChatMessage[],
    tools?: FunctionToolSpec[],
    opts?: CountOptions,
  ): Promise<number> {
    await this.init();
    return this.route(modelId).countTokens(modelId, messages, tools, opts);
  }

  async embed(
    modelId: string,
    inputs: string[],
    dimensions?: number,
    signal?: AbortSignal,
  ): Promise<EmbedResult> {
    await this.init();
    const engine = this.route(modelId);
    if (!engine.embed) throw unsupportedModel(modelId, 'embeddings');
    return engine.embed(modelId, inputs, dimensions, signal);
  }

  private route(modelId: string): Engine {
    const engine = this.engines.find((e) => e.models().some((m) => m.id === modelId));
    if (!engine) throw modelNotFound(modelId, this.missingReason());
    return engine;
  }

  private async initMember(engine: Engine): Promise<void> {
    if (!engine.init) return;
    const ms = this.opts.initTimeoutMs ?? MODEL_LIST_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settled = engine.init().then(
      () => {
        this.missing.delete(engine);
      },
      (err: unknown) => {
        const why = err instanceof Error ? err.message : String(err);
        this.missing.set(engine, `A model list could not be loaded (${why}); its models are unavailable.`);
      },
    );
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.missing.set(engine, `A model list was still loading after ${ms} ms; try again shortly.`);
        resolve();
      }, ms);
    });
    await Promise.race([settled, late]);
    clearTimeout(timer);
  }
}
