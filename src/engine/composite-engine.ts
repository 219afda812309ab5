import { invalidRequest } from '../core/api-error';
import type {
  ChatMessage,
  Engine,
  EngineChunk,
  FunctionToolSpec,
  GenerateRequest,
  LoadProgress,
  ModelInfo,
} from './types';

/**
 * Serves several engines as one, routing each call by model id to the first engine that lists it.
 * The worker combines `scripted` (always there, no WebGPU) with web-llm's models this way.
 *
 * @example
 * const engine = new CompositeEngine([new ScriptedEngine(), new WebLLMEngine()]);
 */
export class CompositeEngine implements Engine {
  constructor(private readonly engines: Engine[]) {}

  models(): ModelInfo[] {
    const seen = new Set<string>();
    return this.engines.flatMap((e) => e.models()).filter((m) => !seen.has(m.id) && seen.add(m.id));
  }

  load(modelId: string, onProgress?: (p: LoadProgress) => void): Promise<void> {
    return this.route(modelId).load(modelId, onProgress);
  }

  generate(req: GenerateRequest, signal: AbortSignal): AsyncIterable<EngineChunk> {
    return this.route(req.model).generate(req, signal);
  }

  countTokens(modelId: string, messages: ChatMessage[], tools?: FunctionToolSpec[]): Promise<number> {
    return this.route(modelId).countTokens(modelId, messages, tools);
  }

  private route(modelId: string): Engine {
    const engine = this.engines.find((e) => e.models().some((m) => m.id === modelId));
    if (!engine) throw invalidRequest('model', `The model '${modelId}' does not exist.`, 'model_not_found');
    return engine;
  }
}
