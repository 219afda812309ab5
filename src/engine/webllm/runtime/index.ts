/**
 * The web-llm engine's jobs, each on the shared runtime: turns at the GPU, loading, generation
 * and embeddings. `WebLLMEngine` puts them behind the Engine interface.
 *
 * @example
 * import { generateReply, Turns, WebLLMRuntime } from './runtime';
 */
export { embedInputs } from './webllm-embedding';
export { generateReply } from './webllm-generation';
export { ensureLoaded, loadLocked, requiredFeatures } from './webllm-loading';
export { WebLLMRuntime } from './webllm-runtime';
export { Turns } from './webllm-turns';
