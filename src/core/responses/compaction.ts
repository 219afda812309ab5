import * as z from 'zod/mini';
import type { Engine } from '../../engine/types';
import type { ResponseStore } from '../../store/types';
import { newId } from '../http/ids';
import { jsonResponse, readJsonObject } from '../http/json-body';
import { findModel } from '../validation/find-model';
import { parseOrThrow } from '../validation/params';
import { createResponseSchema } from './request/create-schema';
import { previousHistory } from './request/history';
import { normalizeInput } from './request/input-items';
import { checkToolPairing, checkUniqueIds } from './request/item-pairing';
import { checkLocalOptions } from './request/local-options';
import { expandCompactions, sealCompaction } from './request/sealed-compaction';
import { toChatMessages } from './request/to-chat-messages';

const compactSchema = z.pick(createResponseSchema, {
  model: true,
  input: true,
  instructions: true,
  previous_response_id: true,
  prompt_cache_key: true,
  prompt_cache_retention: true,
  prompt_cache_options: true,
  service_tier: true,
  image: true,
});

/**
 * `POST /v1/responses/compact`: every user message is kept, and the whole history is folded into one
 * `compaction` item. Its `encrypted_content` is opaque to clients; intab expands it again when the
 * item comes back as input (see {@link expandCompactions}), so nothing the model saw is lost.
 *
 * @example
 * await compactResponse(new Request(url, { method: 'POST', body: JSON.stringify({ model: 'scripted', input }) }), deps);
 */
export async function compactResponse(
  request: Request,
  deps: { engine: Engine; store: ResponseStore; now: () => number; maxBodyBytes: number },
): Promise<Response> {
  const body = parseOrThrow(compactSchema, await readJsonObject(request, deps.maxBodyBytes));
  const model = findModel(deps.engine, body.model);
  checkLocalOptions(body);
  const history = await previousHistory(deps.store, body.previous_response_id ?? null);
  const origin = new URL(request.url).origin;
  const input = await normalizeInput(body.input ?? undefined, async () => undefined, { origin });
  checkUniqueIds(input);
  history.push(...input);
  const expanded = expandCompactions(history);
  checkToolPairing(expanded);
  const messages = toChatMessages(body.instructions ?? null, expanded, { vision: model.vision });
  const inputTokens = await deps.engine.countTokens(model.id, messages, [], { exact: true });
  const users = expanded.filter((i) => i.type === 'message' && i.role === 'user');
  const compaction = {
    type: 'compaction' as const,
    id: newId('cmp'),
    encrypted_content: sealCompaction(expanded),
  };
  return jsonResponse({
    id: newId('resp'),
    object: 'response.compaction',
    created_at: Math.floor(deps.now() / 1000),
    output: [...users, compaction],
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 0,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens,
    },
    // The effective policy, as on a created response: local models never compress image context.
    ...(body.image && { image: { context_compression: 'disabled' } }),
  });
}
