/** The llama.cpp engine's bounds: prompt sizes and first-token timeout, embedding aborts. */

export { embedEach } from './embed-each';
export {
  byteBound,
  DEFAULT_MAX_FIRST_TOKEN_MS,
  estimateTokens,
  firstTokenBoundMs,
  PROMPT_BATCH,
} from './prompt-bounds';
