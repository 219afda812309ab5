/**
 * web-llm's model records, seen as the Engine's `ModelInfo`s, plus the per-family quirks the engine
 * needs to know about (vision input, `<think>` output, the thinking toggle).
 */
import type { ModelRecord } from '@mlc-ai/web-llm';
import type { ModelInfo } from '../types';

/** Used when a record sets no `overrides.context_window_size` (web-llm's own builds default to 4096). */
export const DEFAULT_CONTEXT_WINDOW = 4096;

/**
 * `created` for every listed model. web-llm records carry no date, so this is the release of the
 * pinned web-llm 0.2.86 model set (v0_2_86), which is stable across page loads.
 */
export const WEBLLM_MODELS_CREATED = 1_735_689_600;

// web-llm's `ModelType` is a runtime enum; comparing its numeric values keeps this file free of a
// value import of web-llm (Node tests and the scripted path must never load it).
const MODEL_TYPE_EMBEDDING = 1;
const MODEL_TYPE_VLM = 2;

/**
 * Maps web-llm model records to `ModelInfo`. Embedding models are listed too, as OpenAI lists its
 * own, with `capabilities: ['embeddings']`, so the core sends them to `/v1/embeddings` only. Later
 * records win over earlier ones with the same `model_id`, so self-hosted records can replace
 * prebuilt ones.
 *
 * @example
 * toModelInfos(prebuiltAppConfig.model_list).find((m) => m.id === 'Qwen3-0.6B-q4f16_1-MLC')?.contextWindow; // 4096
 * toModelInfos(prebuiltAppConfig.model_list).find((m) => m.id === 'snowflake-arctic-embed-m-q0f32-MLC-b32')?.capabilities; // ['embeddings']
 */
export function toModelInfos(records: readonly ModelRecord[]): ModelInfo[] {
  return dedupeRecords(records).map((r) => {
    const embedding = isEmbeddingRecord(r);
    return {
      id: r.model_id,
      owned_by: 'mlc-ai',
      created: WEBLLM_MODELS_CREATED,
      contextWindow:
        r.overrides?.context_window_size ?? (embedding ? libContext(r) : null) ?? DEFAULT_CONTEXT_WINDOW,
      vision: r.model_type === MODEL_TYPE_VLM,
      capabilities: embedding ? ['embeddings'] : ['chat'],
    };
  });
}

/**
 * Whether web-llm runs the record as an embedding model (`model_type` 1): it answers
 * `embeddings.create`, never `chat.completions.create`.
 *
 * @example
 * isEmbeddingRecord({ model_id: 'snowflake-arctic-embed-s-q0f32-MLC-b4', model_type: 1, … }); // true
 */
export function isEmbeddingRecord(record: ModelRecord): boolean {
  return record.model_type === MODEL_TYPE_EMBEDDING;
}

/** web-llm's embedding libraries say their context in the file name (`…-ctx512_cs512_batch32-webgpu.wasm`). */
function libContext(record: ModelRecord): number | null {
  const m = /[-_]ctx(\d+)/.exec(record.model_lib);
  return m ? Number(m[1]) : null;
}

/**
 * One record per `model_id`, the last one winning, in first-seen order.
 *
 * @example
 * dedupeRecords([...prebuilt, { ...prebuilt[0], model: 'https://my.cdn/weights/' }]);
 */
export function dedupeRecords(records: readonly ModelRecord[]): ModelRecord[] {
  const byId = new Map<string, ModelRecord>();
  for (const r of records) byId.set(r.model_id, r);
  return [...byId.values()];
}

/**
 * Whether the model writes its chain of thought as `<think>…</think>` before answering
 * (Qwen3, QwQ, DeepSeek-R1 distills).
 *
 * @example
 * emitsThinkBlocks('Qwen3-0.6B-q4f16_1-MLC'); // true
 */
export function emitsThinkBlocks(modelId: string): boolean {
  return /^(qwen3|qwq)|deepseek-r1/i.test(modelId);
}

/**
 * Whether web-llm's `extra_body.enable_thinking: false` works for the model. web-llm documents it
 * for Qwen3 only: it pre-fills an empty `<think>\n\n</think>` block, which other templates do not expect.
 *
 * @example
 * canDisableThinking('Qwen3-1.7B-q4f16_1-MLC'); // true
 */
export function canDisableThinking(modelId: string): boolean {
  return /^qwen3/i.test(modelId);
}
