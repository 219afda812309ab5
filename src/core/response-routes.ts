import type { ResponseStore } from '../store/types';
import { notFound } from './api-error';
import { jsonResponse } from './http';
import { encodeSseEvent, SSE_HEADERS } from './sse';

function missing(id: string) {
  return notFound(`Response with id '${id}' not found.`);
}

/**
 * `GET /v1/responses/{id}`; with `stream=true` the stored event log is replayed as SSE, after
 * `starting_after` when given.
 *
 * @example
 * await retrieveResponse(store, 'resp_…', new URL('http://x/v1/responses/resp_…?stream=true'));
 */
export async function retrieveResponse(store: ResponseStore, id: string, url: URL): Promise<Response> {
  const stored = await store.getResponse(id);
  if (!stored) throw missing(id);
  if (url.searchParams.get('stream') !== 'true') return jsonResponse(stored.response);
  const after = url.searchParams.get('starting_after');
  const events = await store.readEvents(id, after === null ? undefined : Number(after));
  const body = events.map((e) => encodeSseEvent(e)).join('');
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

/** `DELETE /v1/responses/{id}` → `{id, object: 'response.deleted', deleted: true}`. */
export async function deleteResponse(store: ResponseStore, id: string): Promise<Response> {
  if (!(await store.deleteResponse(id))) throw missing(id);
  return jsonResponse({ id, object: 'response.deleted', deleted: true });
}
