/** The llama.cpp engine's bounds: prompt sizes and first-token timeout, embedding aborts. */

export { embedEach } from './embed-each';
export {
  byteBound,
  DEFAULT_MAX_FIRST_TOKEN_MS,
  estimateTokens,
  firstTokenBoundMs,
  longestTokenBytes,
  PROMPT_BATCH,
  tokenFloor,
  utf8Length,
} from './prompt-bounds';
