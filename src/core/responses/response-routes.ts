import * as z from 'zod/mini';
import { clip, invalidRequest, notFound } from '../../common/api-error';
import { type Engine, promptShape } from '../../engine/types';
import type { ResponseStore, StoredResponse } from '../../store/types';
import type { FileSearchBackend, McpConnector } from '../hosted';
import { jsonResponse, readJsonObject } from '../http/json-body';
import { listBody, parseListParams } from '../http/list-params';
import { SSE_HEADERS } from '../http/sse';
import { sseBody } from '../http/sse-body';
import { parseOrThrow } from '../validation/params';
import { rebuildEvents, terminalEvent } from './persist/replay-events';
import { createResponseSchema } from './request/create-schema';
import { queryIncludes } from './request/includes';
import { prepareCreate } from './request/prepare-create';
import type { ResponseObject } from './request/response-object';
import type { LiveRuns } from './run/live-runs';
import { ResponseRun, type StreamEvent } from './run/response-run';

function missing(id: string) {
  return notFound(`Response with id '${clip(id)}' not found.`);
}

/**
 * `GET /v1/responses/{id}`; with `stream=true` the response is replayed as SSE after
 * `starting_after`: a background response from its event log (and, while it runs, live events
 * follow), any other from events rebuilt from the stored response, once it has ended.
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
  let stored = await store.getResponse(id);
  if (!stored) throw missing(id);
  if (url.searchParams.get('stream') !== 'true') return jsonResponse(stored.response);
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
  if (running?.followable)
    return new Response(sseBody(running.follow(after)), { status: 200, headers: SSE_HEADERS });
  if (running) {
    // A direct stream or JSON run keeps no events: its replay is rebuilt once it has ended.
    await running.settled;
    stored = await store.getResponse(id);
    if (!stored) throw missing(id);
  }
  const events = (await storedEvents(store, stored)).filter((e) => e.sequence_number > after);
  return new Response(sseBody(fromArray(events)), { status: 200, headers: SSE_HEADERS });
}

/**
 * A stored response's stream: its event log where it has one (ended by a terminal event built from
 * the stored response when the log stops short of one), else events rebuilt from the response.
 */
async function storedEvents(store: ResponseStore, stored: StoredResponse): Promise<StreamEvent[]> {
  const response = stored.response as unknown as ResponseObject;
  const log = response.background ? await store.readEvents(response.id) : [];
  const last = log.at(-1);
  if (!last) return rebuildEvents(response);
  // An `error` may follow the terminal event (its final write failed): the log has its end.
  if (log.findLast((e) => ResponseRun.isTerminal(e))) return log;
  const end = terminalEvent(response, last.sequence_number + 1);
  return end ? [...log, end] : log;
}

async function* fromArray<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

/**
 * `DELETE /v1/responses/{id}` → `{id, object: 'response.deleted', deleted: true}`. A response that
 * is still running is stopped first, and deleted once it has settled, so nothing it writes later (its
 * final record, its event log) brings it back.
 */
export async function deleteResponse(store: ResponseStore, live: LiveRuns, id: string): Promise<Response> {
  const running = live.get(id);
  if (running) {
    running.deleted = true;
    running.stop(new DOMException('The response was deleted.', 'AbortError'));
    await running.settled;
  }
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
    running.stop(new DOMException('Cancelled through the API.', 'AbortError'));
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

const countSchema = z.pick(createResponseSchema, {
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
  deps: {
    engine: Engine;
    store: ResponseStore;
    maxBodyBytes: number;
    fileSearch?: FileSearchBackend;
    mcp?: McpConnector;
  },
): Promise<Response> {
  const json = await readJsonObject(request, deps.maxBodyBytes);
  parseOrThrow(countSchema, json);
  // Counting must see exactly what create would send the model, so it shares create's preparation;
  // truncation is left out so an oversized input is counted, not refused.
  // The request's signal: a client that goes away stops the MCP listing a count may need.
  const prepared = await prepareCreate(
    { ...json, truncation: 'auto' },
    { ...deps, signal: request.signal },
    { fit: false },
  );
  const n = await deps.engine.countTokens(
    prepared.model.id,
    prepared.generate.messages,
    prepared.generate.tools,
    // The tool choice, format and effort render into the prompt as they will at generation.
    { exact: true, shape: promptShape(prepared.generate) },
  );
  // OpenAI's body has no room to say so; a header tells an estimate (no tokenizer loaded yet) apart.
  const exact = (await deps.engine.countsExactly?.(prepared.model.id)) ?? true;
  return jsonResponse({ object: 'response.input_tokens', input_tokens: n }, 200, {
    'intab-token-count': exact ? 'exact' : 'estimate',
  });
}
