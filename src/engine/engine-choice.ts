/**
 * One model id, several engines: a model an app offers both as a web-llm build and as a GGUF is served
 * by web-llm where WebGPU can run it and by llama.cpp (wllama) everywhere else, under the one id the
 * app uses; a model offered as a web-llm build and on a remote server runs locally where WebGPU can
 * run it, else remotely. The choice is made once per model, on first use, and `/v1/models` then
 * names the engine.
 */
import { modelNotFound } from '../common/api-error';
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
import { webGpuHas } from './webllm/webllm-webgpu';

/** A model id served by web-llm, wllama or a remote server. */
export interface ChoiceSpec {
  /** The id requests use; the wllama engine (or the remote one) serves the model under this id too. */
  id: string;
  /** web-llm's id for the same model (e.g. `Qwen3-0.6B-q4f16_1-MLC`). */
  webllm: string;
  /**
   * Where the model runs when web-llm cannot: `wllama` (default: its GGUF, under `id`) or `remote`
   * (the remote engine's model `id`).
   */
  fallback?: 'wllama' | 'remote';
  /** `auto` (default): web-llm when WebGPU has what the build needs, else the fallback. */
  engine?: 'auto' | 'web-llm' | 'wllama' | 'remote';
}

type Chosen = 'web-llm' | 'wllama' | 'remote';

export interface EngineChoiceOptions {
  /** The specs; the array may grow later (remote servers arrive after start-up). */
  specs: ChoiceSpec[];
  webllm: Engine;
  wllama: Engine;
  /** Serves specs whose fallback is `remote`. */
  remote?: Engine;
  /** Whether WebGPU can run a build needing `features`. Default: asks `navigator.gpu`. */
  hasWebGpu?: (features: string[]) => Promise<boolean>;
}

/**
 * @example
 * const choice = new EngineChoice({ specs: [{ id: 'qwen', webllm: 'Qwen3-0.6B-q4f16_1-MLC' }], webllm, wllama });
 * new CompositeEngine([new ScriptedEngine(), choice, webllm, wllama]);
 */
export class EngineChoice implements Engine {
  private readonly chosen = new Map<string, Promise<Chosen>>();
  private readonly decided = new Map<string, Chosen>();

  constructor(private readonly opts: EngineChoiceOptions) {}

  models(): ModelInfo[] {
    return this.opts.specs.flatMap((spec) => {
      const base = this.fallback(spec)
        .models()
        .find((m) => m.id === spec.id);
      if (!base) return [];
      const engine = this.decided.get(spec.id);
      if (engine !== 'web-llm') return [{ ...base, engine: engine ?? 'auto' }];
      const webllm = this.opts.webllm.models().find((m) => m.id === spec.webllm);
      return [{ ...(webllm ?? base), id: spec.id, engine: 'web-llm' }];
    });
  }

  /**
   * Which engine serves `modelId`: fixed by the spec, or for `auto` web-llm when WebGPU has the
   * features its build needs (f16 builds need `shader-f16`), else wllama.
   *
   * @example
   * await choice.engineFor('qwen'); // 'wllama' on a machine without WebGPU
   */
  engineFor(modelId: string): Promise<Chosen> {
    const spec = this.opts.specs.find((s) => s.id === modelId);
    if (!spec) return Promise.reject(modelNotFound(modelId));
    let pick = this.chosen.get(modelId);
    if (!pick) {
      pick = (async () => {
        const want = spec.engine ?? 'auto';
        if (want !== 'auto') return want;
        const features = /q\d+f16/.test(spec.webllm) ? ['shader-f16'] : [];
        return (await (this.opts.hasWebGpu ?? webGpuHas)(features)) ? 'web-llm' : (spec.fallback ?? 'wllama');
      })().then((engine) => {
        this.decided.set(modelId, engine);
        return engine;
      });
      this.chosen.set(modelId, pick);
    }
    return pick;
  }

  async preflight(modelId: string, req?: GenerateRequest): Promise<void> {
    const [engine, id] = await this.route(modelId);
    await engine.preflight?.(id, req && { ...req, model: id });
  }

  async load(modelId: string, onProgress?: (p: LoadProgress) => void): Promise<void> {
    const [engine, id] = await this.route(modelId);
    await engine.load(id, onProgress);
  }

  async *generate(req: GenerateRequest, signal: AbortSignal): AsyncGenerator<EngineChunk> {
    const [engine, id] = await this.route(req.model);
    yield* engine.generate({ ...req, model: id }, signal);
  }

  async countTokens(
    modelId: string,
    messages: ChatMessage[],
    tools?: FunctionToolSpec[],
    opts?: CountOptions,
  ): Promise<number> {
    const [engine, id] = await this.route(modelId);
    return engine.countTokens(id, messages, tools, opts);
  }

  async countsExactly(modelId: string): Promise<boolean> {
    const [engine, id] = await this.route(modelId);
    return (await engine.countsExactly?.(id)) ?? true;
  }

  async embed(
    modelId: string,
    inputs: string[],
    dimensions?: number,
    signal?: AbortSignal,
  ): Promise<EmbedResult> {
    const [engine, id] = await this.route(modelId);
    if (!engine.embed) throw modelNotFound(modelId);
    return engine.embed(id, inputs, dimensions, signal);
  }

  private async route(modelId: string): Promise<[Engine, string]> {
    const spec = this.opts.specs.find((s) => s.id === modelId);
    if (!spec) throw modelNotFound(modelId);
    const chosen = await this.engineFor(modelId);
    if (chosen === 'web-llm') return [this.opts.webllm, spec.webllm];
    return [chosen === 'remote' && this.opts.remote ? this.opts.remote : this.opts.wllama, spec.id];
  }

  /** The engine that lists `spec` before (or without) web-llm. */
  private fallback(spec: ChoiceSpec): Engine {
    return spec.fallback === 'remote' && this.opts.remote ? this.opts.remote : this.opts.wllama;
  }
}
