/**
 * The llama.cpp engine's embedding loop: one input per llama.cpp call (wllama answers a list with
 * the last input's vector only), stopping between inputs once the request is aborted, so a client
 * that went away frees the engine after the input in hand rather than after all of them.
 */
import { ApiError } from '../../../common/api-error';
import type { EmbedResult } from '../../types';

/** One input's vector and the tokens it took. */
export interface OneEmbedding {
  vector: number[];
  tokens: number;
}

/**
 * The error of an embeddings request whose client went away (nginx's 499, as the core uses).
 *
 * @example
 * if (signal.aborted) throw embeddingAborted();
 */
export function embeddingAborted(): ApiError {
  return new ApiError(499, 'invalid_request_error', 'client_closed_request', null, 'The client went away.');
}

/**
 * Embeds each input in turn with `one`; throws {@link embeddingAborted} as soon as `signal` is
 * aborted, before the next input starts.
 *
 * @example
 * const { vectors, tokens } = await embedEach(inputs, (input) => embedOne(input), signal);
 */
export async function embedEach(
  inputs: readonly string[],
  one: (input: string) => Promise<OneEmbedding>,
  signal?: AbortSignal,
): Promise<EmbedResult> {
  const vectors: number[][] = [];
  let tokens = 0;
  for (const input of inputs) {
    if (signal?.aborted) throw embeddingAborted();
    const out = await one(input);
    vectors.push(out.vector);
    tokens += out.tokens;
  }
  if (signal?.aborted) throw embeddingAborted();
  return { vectors, tokens };
}
