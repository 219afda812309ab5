/**
 * Which models web-llm should hold at once. web-llm's `reload` unloads everything first, so loading
 * an embedding model used to evict the chat model (and the next chat request paid for a full reload
 * of its weights). `reload([chat, embed])` keeps one of each: a chat model and an embedding model
 * share the GPU where memory allows.
 */
import type { ModelRecord } from '@mlc-ai/web-llm';
import { isEmbeddingRecord } from './webllm-models';

/**
 * The models to load so that `target` is ready: `target` beside the loaded model of the other kind
 * (chat beside embedding, embedding beside chat) when pairing is allowed and the pair fits
 * `budgetMB` (the sum of the records' `vram_required_MB`; a record that does not say counts as 0,
 * and no budget means "try, and fall back to `target` alone if the GPU refuses"). The chat model
 * comes first, as web-llm picks the first loaded model when a request names none.
 *
 * @example
 * modelsToLoad(embedRecord, [chatRecord], { budgetMB: 8192 }); // [chat id, embed id]
 * modelsToLoad(chatRecord2, [chatRecord], {}); // [chat2 id]: never two chat models
 */
export function modelsToLoad(
  target: ModelRecord,
  loaded: readonly ModelRecord[],
  opts: { budgetMB?: number; refused?: ReadonlySet<string> },
): string[] {
  const embedding = isEmbeddingRecord(target);
  const other = loaded.find((r) => isEmbeddingRecord(r) !== embedding && r.model_id !== target.model_id);
  if (!other) return [target.model_id];
  const pair = embedding ? [other, target] : [target, other];
  const key = pairKey(pair.map((r) => r.model_id));
  if (opts.refused?.has(key)) return [target.model_id];
  const need = pair.reduce((mb, r) => mb + (r.vram_required_MB ?? 0), 0);
  if (opts.budgetMB !== undefined && need > opts.budgetMB) return [target.model_id];
  return pair.map((r) => r.model_id);
}

/** A stable name for a set of models, to remember a pair the GPU refused. */
export function pairKey(ids: readonly string[]): string {
  return [...ids].sort().join('\n');
}
