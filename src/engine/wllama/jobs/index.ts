/**
 * The llama.cpp engine's jobs, one module each: the shared model state, starting llama.cpp,
 * loading, generation (with its abort drain), embeddings and token counting.
 */
export { countTokens } from './count-tokens';
export { embedInputs } from './embed';
export { generateChunks } from './generate';
export { absoluteUrl, LlamaStarter } from './llama-start';
export { WllamaLoader } from './load';
export { WllamaModels } from './models';
