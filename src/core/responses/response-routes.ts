import { clip, invalidRequest, notFound } from '../../common/api-error';
import type { Engine } from '../../engine/types';
import type { ResponseStore } from '../../store/types';
import { jsonResponse, readJsonObject } from '../shared/http';
import { listBody, parseListParams } from '../shared/list-params';
import { SSE_HEADERS } from '../shared/sse';
import { sseBody } from '../shared/sse-body';
import { parseOrThrow } from '../shared/validate';
import { createResponseSchema } from './create-schema';
import { queryIncludes } from './includes';
import type { LiveRuns } from './live-runs';
import { prepareCreate } from './prepare-create';
import type { StreamEvent } from './response-run';

function missing(id: string) {
  return notFound(`Response with id '${clip(id)}' not found.`);
}

/**
 * `GET /v1/responses/{id}`; with `stream=true` the stored event log is replayed as SSE after
 * `starting_after`, and for a background response still running, live events follow.
 *
 * @example
 * await retrieveResponse(store, live, 'resp_…', new URL('http://x/v1/responses/resp_…?stream=true&starting_after=4'));
 */
export async function retrieveResponse(
  store: ResponseStore,
  live: LiveRuns,
  id: string,
  url: URL,
): Promise<Response> {
  queryIncludes(url);
  const stored = await store.getResponse(id);
  if (!stored) throw missing(id);
  if (url.searchParams.get('stream') !== 'true') return jsonResponse(stored.response);
  if (!stored.response.background) {
    // Only background responses keep an event log to stream from, as at OpenAI.
    throw invalidRequest(
      'stream',
      'Streaming a stored response is only supported for responses created with background=true.',
    );
  }
  const raw = url.searchParams.get('starting_after');
  const after = raw === null ? -1 : Number(raw);
  if (!Number.isInteger(after) || after < -1) {
    throw invalidRequest(
      'starting_after',
      `Invalid 'starting_after': expected an integer, but got '${clip(String(raw))}'.`,
      'invalid_type',
    );
  }
  const running = live.get(id);
  // A running background response has every event in memory; a finished one has them in the log.
  const events: AsyncIterable<StreamEvent> = running
    ? running.follow(after)
    : fromArray(await store.readEvents(id, after));
  return new Response(sseBody(events), { status: 200, headers: SSE_HEADERS });
}

async function* fromArray<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

/** `DELETE /v1/responses/{id}` → `{id, object: 'response.deleted', deleted: true}`. */
export async function deleteResponse(store: ResponseStore, live: LiveRuns, id: string): Promise<Response> {
  live.get(id)?.abort.abort();
  if (!(await store.deleteResponse(id))) throw missing(id);
  return jsonResponse({ id, object: 'response.deleted', deleted: true });
}

/**
 * `POST /v1/responses/{id}/cancel`: stops a background response within one token and answers with
 * it `cancelled`. Cancelling a cancelled one again is a no-op; other responses cannot be cancelled.
 */
export async function cancelResponse(store: ResponseStore, live: LiveRuns, id: string): Promise<Response> {
  const stored = await store.getResponse(id);
  if (!stored) throw missing(id);
  if (!stored.response.background) {
    throw invalidRequest(null, 'Only responses created with background=true can be cancelled.');
  }
  const running = live.get(id);
  if (running) {
    running.abort.abort(new DOMException('Cancelled through the API.', 'AbortError'));
    await running.settled;
    const after = await store.getResponse(id);
    if (!after) throw missing(id);
    return jsonResponse(after.response);
  }
  if (stored.response.status === 'cancelled') return jsonResponse(stored.response);
  throw invalidRequest(null, `Cannot cancel a response with status '${stored.response.status}'.`);
}

/** `GET /v1/responses/{id}/input_items`: OpenAI's cursor list over the items the model saw. */
export async function listInputItems(store: ResponseStore, id: string, url: URL): Promise<Response> {
  queryIncludes(url);
  const stored = await store.getResponse(id);
  if (!stored) throw missing(id);
  return jsonResponse(cursorPage(stored.inputItems, url));
}

/**
 * One page of OpenAI's cursor lists (`limit` 1–100, default 20; `order` default `desc`; `after` an
 * item id).
 *
 * @example
 * cursorPage(items, new URL('http://x/?limit=2&order=asc')) // → { object: 'list', data, first_id, last_id, has_more }
 */
export function cursorPage<T extends { id?: string | null }>(items: T[], url: URL) {
  const { limit, order, after } = parseListParams(url);
  const ordered = order === 'asc' ? items : [...items].reverse();
  let start = 0;
  if (after) {
    const i = ordered.findIndex((it) => it.id === after);
    if (i < 0) throw invalidRequest('after', `No item found with id '${clip(after)}'.`, 'invalid_value');
    start = i + 1;
  }
  return listBody(ordered.slice(start, start + limit), start + limit < ordered.length);
}

const countSchema = createResponseSchema.pick({
  model: true,
  input: true,
  instructions: true,
  previous_response_id: true,
  conversation: true,
  tools: true,
  tool_choice: true,
  parallel_tool_calls: true,
  reasoning: true,
  text: true,
  truncation: true,
});

/** `POST /v1/responses/input_tokens` → `{object: 'response.input_tokens', input_tokens}`. */
export async function countInputTokens(
  request: Request,
  deps: { engine: Engine; store: ResponseStore; maxBodyBytes: number },
): Promise<Response> {
  const json = await readJsonObject(request, deps.maxBodyBytes);
  parseOrThrow(countSchema, json);
  // Counting must see exactly what create would send the model, so it shares create's preparation;
  // truncation is left out so an oversized input is counted, not refused.
  const prepared = await prepareCreate({ ...json, truncation: 'auto' }, deps, { fit: false });
  const n = await deps.engine.countTokens(
    prepared.model.id,
    prepared.generate.messages,
    prepared.generate.tools,
  );
  // OpenAI's body has no room to say so; a header tells an estimate (no tokenizer loaded yet) apart.
  const exact = (await deps.engine.countsExactly?.(prepared.model.id)) ?? true;
  return jsonResponse({ object: 'response.input_tokens', input_tokens: n }, 200, {
    'intab-token-count': exact ? 'exact' : 'estimate',
  });
}
