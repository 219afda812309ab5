/**
 * The llama.cpp engine (`@wllama/wllama`): GGUF models in the tab, on the CPU or WebGPU.
 *
 * @example
 * import { WllamaEngine } from './engine/wllama';
 * const engine = new WllamaEngine({ models: [{ id: 'tiny', url: '/models/tiny.gguf' }], wasmUrl });
 */
export { detectFamily } from './gguf-family';
export { type GgufHeader, readGgufHeader } from './gguf-header';
export { jsonSchemaToGbnf } from './grammar';
export { WllamaEngine } from './wllama-engine';
export type { ModelFetcher, WllamaEngineOptions, WllamaLike, WllamaModelSpec } from './wllama-options';
