import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';
import * as z from 'zod/mini';
import { ApiError, invalidRequest, toErrorResponse, unsupportedModel } from '../../common/api-error';
import { bytesToBase64 } from '../../common/base64';
import type { Engine } from '../../engine/types';
import { jsonResponse, readJsonObject } from '../http/json-body';
import { holdJson, untilAborted } from '../http/json-hold';
import { findModel } from '../validation/find-model';
import { parseOrThrow } from '../validation/params';

/** The most inputs one request may embed, as at OpenAI. */
export const MAX_EMBEDDING_INPUTS = 2048;

const embeddingsSchema = z.strictObject({
  model: z.string().check(z.minLength(1)),
  // Token arrays parse, so that they are refused by name rather than as malformed.
  input: z.union([
    z.string(),
    z.array(z.union([z.string(), z.number(), z.array(z.number())])).check(z.maxLength(MAX_EMBEDDING_INPUTS)),
  ]),
  dimensions: z.nullish(z.number().check(z.int()).check(z.minimum(1))),
  encoding_format: z.nullish(z.enum(['float', 'base64'])),
  user: z.optional(z.string()),
});

export interface EmbeddingDeps {
  engine: Engine;
  maxBodyBytes: number;
  /** How long a request may wait for its status line before headers go out early (DESIGN.md §4). */
  jsonHoldMs: number;
}

/**
 * `POST /v1/embeddings` on engines that implement `embed`, with models listed for embeddings
 * (`scripted`, web-llm's embedding models); a chat model is a 400 on `model`. Input is a string or
 * an array of strings; token arrays are a 400 (their ids are OpenAI's tokenizer's). With
 * `encoding_format: 'base64'` each vector is its little-endian float32 bytes in base64, as OpenAI
 * sends them (the `openai` SDK asks for that by default and decodes it).
 *
 * @example
 * const res = await createEmbeddings(new Request(url, { method: 'POST', body: '{"model":"scripted","input":"hi"}' }), deps);
 */
export async function createEmbeddings(request: Request, deps: EmbeddingDeps): Promise<Response> {
  const body = parseOrThrow(embeddingsSchema, await readJsonObject(request, deps.maxBodyBytes));
  const inputs = textInputs(body.input);
  const model = findModel(deps.engine, body.model, 'embeddings');
  const { engine } = deps;
  const embed = engine.embed?.bind(engine);
  if (!embed) throw unsupportedModel(model.id, 'embeddings');
  await engine.preflight?.(model.id);
  const abort = new AbortController();
  const stop = (): void => abort.abort();
  request.signal.addEventListener('abort', stop, { once: true });
  const finished = (async () => {
    // The model may need loading (a download, the first time): it happens inside the answer.
    await untilAborted(engine.load(model.id), abort.signal);
    if (abort.signal.aborted)
      throw new ApiError(
        499,
        'invalid_request_error',
        'client_closed_request',
        null,
        'The client went away.',
      );
    // The signal too: an engine that embeds input by input stops between them once it aborts.
    const { vectors, tokens } = await embed(model.id, inputs, body.dimensions ?? undefined, abort.signal);
    const base64 = body.encoding_format === 'base64';
    const answer: CreateEmbeddingResponse = {
      object: 'list',
      data: vectors.map((v, index) => ({
        object: 'embedding',
        index,
        // The wire carries a string here; the SDK's type names only the float form.
        embedding: (base64 ? float32Base64(v) : v) as number[],
      })),
      model: model.id,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    };
    return jsonResponse(answer);
  })().catch((err: unknown) => toErrorResponse(err));
  return holdJson(finished, deps.jsonHoldMs, stop);
}

/** The request's texts; token arrays and empty strings are a 400 naming the input. */
function textInputs(input: string | (string | number | number[])[]): string[] {
  const list = typeof input === 'string' ? [input] : input;
  if (list.length === 0) {
    throw invalidRequest(
      'input',
      "Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'empty_array',
    );
  }
  return list.map((item, i) => {
    const param = typeof input === 'string' ? 'input' : `input[${i}]`;
    if (typeof item !== 'string') {
      throw invalidRequest(
        'input',
        "Token arrays are not supported by intab: their ids belong to OpenAI's tokenizers, and local models have their own. Send the text instead.",
        'unsupported_value',
      );
    }
    if (item === '')
      throw invalidRequest(
        param,
        `Invalid '${param}': empty string. Each input must be a non-empty string.`,
        'invalid_value',
      );
    return item;
  });
}

/**
 * A vector as OpenAI's `base64` encoding: float32 values, little-endian, in base64.
 *
 * @example
 * float32Base64([1, 0]) // → 'AACAPwAAAAA='
 */
export function float32Base64(vector: number[]): string {
  const view = new DataView(new ArrayBuffer(vector.length * 4));
  for (const [i, x] of vector.entries()) view.setFloat32(i * 4, x, true);
  return bytesToBase64(new Uint8Array(view.buffer));
}
