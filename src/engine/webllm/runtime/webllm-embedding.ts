/** Embeddings through web-llm's `embeddings.create` with an embedding model (`model_type` 1). */
import { invalidRequest, serverError, unsupportedModel } from '../../../common/api-error';
import type { EmbedResult } from '../../types';
import { isEmbeddingRecord } from '../webllm-models';
import { ensureLoaded } from './webllm-loading';
import type { WebLLMRuntime } from './webllm-runtime';

/**
 * Embeds through web-llm's `embeddings.create` with an embedding model (`model_type` 1), loading
 * it first (beside the chat model where memory allows). web-llm cannot shorten its vectors,
 * so `dimensions` is a 400, as OpenAI answers for its models that cannot either. `turn` waits for
 * the GPU and yields its release.
 *
 * @example
 * const { vectors } = await embedInputs(runtime, 'snowflake-arctic-embed-s', ['hi'], undefined, turn);
 */
export async function embedInputs(
  rt: WebLLMRuntime,
  modelId: string,
  inputs: string[],
  dimensions: number | undefined,
  turn: () => Promise<(() => void) | null>,
): Promise<EmbedResult> {
  const record = await rt.recordOf(modelId);
  if (!isEmbeddingRecord(record)) throw unsupportedModel(modelId, 'embeddings');
  if (dimensions !== undefined) {
    throw invalidRequest(
      'dimensions',
      `The model '${modelId}' does not support specifying dimensions.`,
      'unsupported_value',
    );
  }
  const release = await turn();
  try {
    await ensureLoaded(rt, modelId);
    const mlc = await rt.engine();
    if (!mlc.embeddings) throw serverError('This web-llm engine has no embeddings API.');
    const res = await rt.mapErrors(mlc.embeddings.create({ input: inputs, model: modelId }), modelId);
    const byIndex = [...res.data].sort((a, b) => a.index - b.index);
    return { vectors: byIndex.map((d) => d.embedding), tokens: res.usage.prompt_tokens };
  } finally {
    release?.();
  }
}
