import type { ResponseStore } from '../store/types';
import { jsonResponse } from './http/json-body';
import { parseLimit } from './http/list-params';

/**
 * `GET /v1/intab/storage?limit=N`: intab's one extension route (OpenAI has no list of stored
 * responses). It lists the newest stored responses and conversations for storage views such as the
 * demo's panel; viewing and deleting use OpenAI's own routes.
 *
 * @example
 * await fetch('/v1/intab/storage?limit=20').then((r) => r.json()) // → { object: 'intab.storage', responses: [...], conversations: [...] }
 */
export async function listStorage(store: ResponseStore, url: URL): Promise<Response> {
  const limit = parseLimit(url);
  const recent = await store.listRecent(limit);
  return jsonResponse({
    object: 'intab.storage',
    responses: recent.responses.map((r) => ({
      id: r.id,
      created_at: r.created_at,
      status: r.status,
      model: r.model,
      background: r.background ?? false,
      conversation: r.conversation ?? null,
    })),
    conversations: recent.conversations,
  });
}
