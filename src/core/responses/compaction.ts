import type { ResponseItem } from 'openai/resources/responses/responses';
import { invalidRequest } from '../../common/api-error';
import type { Engine } from '../../engine/types';
import type { ResponseStore } from '../../store/types';
import { jsonResponse, readJsonObject } from '../plumbing/http';
import { newId } from '../plumbing/ids';
import { findModel, previousHistory } from '../plumbing/lookups';
import { parseOrThrow } from '../plumbing/validate';
import { createResponseSchema, inputItemSchema } from './request/create-schema';
import { normalizeInput } from './request/input-items';
import { checkToolPairing, checkUniqueIds } from './request/item-pairing';
import { checkLocalOptions } from './request/local-options';
import { toChatMessages } from './request/to-chat-messages';
import { seal, unseal } from './sealed';

const PREFIX = 'intab.v1.';

const compactSchema = createResponseSchema.pick({
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
  const compaction = { type: 'compaction' as const, id: newId('cmp'), encrypted_content: encode(expanded) };
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

function encode(items: ResponseItem[]): string {
  return seal(PREFIX, items);
}

function decode(content: string, index: number): ResponseItem[] {
  const items = unseal(PREFIX, content);
  // The string is opaque, not signed: what comes back must still be items, or it was forged.
  if (Array.isArray(items) && items.every((item) => inputItemSchema.safeParse(item).success))
    return items as ResponseItem[];
  throw invalidRequest(
    `input[${index}].encrypted_content`,
    'The compaction item could not be read: it was not produced by intab, or it was altered.',
    'invalid_encrypted_content',
  );
}

/**
 * Replaces each `compaction` item with the history it stands for. The user messages that compaction
 * kept beside it are in that history too (same ids), so their copies before it are dropped.
 *
 * @example
 * expandCompactions([userMsg, compactionItem, newUserMsg]) // → [...original history, newUserMsg]
 */
export function expandCompactions(items: ResponseItem[]): ResponseItem[] {
  if (!items.some((i) => i.type === 'compaction')) return items;
  let out: ResponseItem[] = [];
  items.forEach((item, i) => {
    if (item.type !== 'compaction') {
      out.push(item);
      return;
    }
    const restored = decode(item.encrypted_content, i);
    const ids = new Set(restored.map((r) => r.id));
    out = [...out.filter((o) => !ids.has(o.id)), ...restored];
  });
  return out;
}
