/**
 * Embeddings on llama.cpp: one bounded call per input, under the gate; an input that times out or
 * kills the worker takes its instance with it.
 */
import { ApiError, invalidRequest, unsupportedModel } from '../../../common/api-error';
import { base64ToBytes } from '../../../common/base64';
import type { EmbedResult } from '../../types';
import { TimeoutError, withTimeout } from '../chunk-queue';
import { embedEach } from '../limits';
import { embeddingAborted } from '../limits/embed-each';
import { isInstanceDead, mapGenerateError } from '../wllama-errors';
import type { WllamaLoader } from './load';
import type { WllamaModels } from './models';

/**
 * @example
 * const { data } = await embedInputs(models, loader, 'embed-model', ['hello'], undefined, signal);
 */
export async function embedInputs(
  models: WllamaModels,
  loader: WllamaLoader,
  modelId: string,
  inputs: string[],
  dimensions?: number,
  signal?: AbortSignal,
): Promise<EmbedResult> {
  models.registration(modelId);
  if (models.kindOf(modelId) !== 'embeddings') throw unsupportedModel(modelId, 'embeddings');
  if (dimensions !== undefined) {
    throw invalidRequest(
      'dimensions',
      `The model '${modelId}' does not support specifying dimensions.`,
      'unsupported_value',
    );
  }
  models.turns.refuseWhenFull(modelId);
  const release = await models.turns.awaitTurn(signal);
  if (!release) throw embeddingAborted();
  try {
    const inst = await loader.shared(modelId, undefined, false);
    const mark = inst.log.mark();
    try {
      return await embedEach(
        inputs,
        async (input) => {
          const res = await withTimeout(
            inst.wllama.createEmbedding({ input }),
            models.stallMs(),
            'llama.cpp (embeddings)',
          );
          const data = res.data[0];
          if (!data) throw new Error('llama.cpp returned no embedding.');
          const vector = typeof data.embedding === 'string' ? decodeBase64(data.embedding) : data.embedding;
          return { vector, tokens: res.usage.prompt_tokens };
        },
        signal,
      );
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (err instanceof TimeoutError || isInstanceDead(err)) models.discard(inst, 'embedding failed');
      throw mapGenerateError(err, modelId, inst.log.trouble(mark));
    }
  } finally {
    release();
  }
}

function decodeBase64(b64: string): number[] {
  return [...new Float32Array(base64ToBytes(b64).buffer)];
}
