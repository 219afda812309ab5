/**
 * The web-llm engine's jobs, each on the shared runtime: loading, generation and embeddings.
 * `WebLLMEngine` puts them behind the Engine interface, one at a time through its turns at the GPU.
 *
 * @example
 * import { generateReply, WebLLMRuntime } from './runtime';
 */
export { embedInputs } from './webllm-embedding';
export { generateReply } from './webllm-generation';
export { ensureLoaded, loadLocked, requiredFeatures } from './webllm-loading';
export { WebLLMRuntime } from './webllm-runtime';
