/** The llama.cpp engine's bounds: prompt sizes and first-token timeout, embedding aborts, a build's start. */

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
export {
  checkSimdFiles,
  STARTED_LINE,
  WASM_START_MS,
  type WasmFetch,
  WasmStartError,
  watchWasmStart,
} from './wasm-start';
