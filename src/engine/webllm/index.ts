/**
 * The web-llm engine: an `MLCEngine` owned inside the engine worker, on WebGPU.
 *
 * @example
 * import { WebLLMEngine } from './webllm';
 * const engine = new WebLLMEngine({ loadTimeoutMs: 600_000 });
 */
export { WebLLMEngine } from './webllm-engine';
export type { MLCEngineLike, WebLLMEngineOptions } from './webllm-engine-options';
