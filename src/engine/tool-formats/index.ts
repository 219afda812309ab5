/**
 * What the real engines share about model families: each family's native tool-call format (how
 * tools are offered, how calls are written and parsed back, where results go) and its reasoning
 * markers.
 *
 * @example
 * import { familyOf } from './tool-formats';
 * const family = familyOf('Qwen3-8B-q4f16_1-MLC'); // family.tools.parse…, family.reasoning
 */
export { CallStream } from './call-stream';
export { familyOf, type ModelFamily, type ReasoningMarkers } from './model-family';
export type * from './types';
