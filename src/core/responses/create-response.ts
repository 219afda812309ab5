import { invalidRequest, toErrorResponse } from '../../common/api-error';
import { pace, yieldTurn } from '../../common/pace';
import type { Engine, LoadProgress } from '../../engine/types';
import type { ResponseStore } from '../../store/types';
import type { FileContentReader, FileSearchBackend, McpConnector, PythonBackend } from '../hosted';
import { EventQueue } from '../http/event-queue';
import { newId } from '../http/ids';
import { jsonResponse, readJsonObject } from '../http/json-body';
import { followRequest, holdJson, type RequestWork } from '../http/json-hold';
import { loadComment, SSE_HEADERS, type SseComment } from '../http/sse';
import { sseBody } from '../http/sse-body';
import type { FileFetcher } from '../inputs/input-files';
import { execute } from './execute-run';
import { EventLog } from './persist/event-log';
import { record, storeJsonResult } from './persist/final-save';
import type { RunLocks } from './persist/recovery';
import { type PreparedCreate, prepareCreate } from './request/prepare-create';
import { newResponseObject, type ResponseObject } from './request/response-object';
import type { LiveRun, LiveRuns } from './run/live-runs';
import { ResponseRun, type StreamEvent } from './run/response-run';

export interface CreateDeps {
  engine: Engine;
  store: ResponseStore;
  live: LiveRuns;
  now: () => number;
  maxBodyBytes: number;
  /** How long a non-streaming request may wait for its status line before headers go out early. */
  jsonHoldMs: number;
  eventFlushMs: number;
  /** A direct stream whose reader takes nothing for this long is abandoned (see {@link sseBody}). */
  streamIdleMs: number;
  runLocks?: RunLocks;
  fetchFile?: FileFetcher;
  readFile?: FileContentReader;
  /** The vector stores behind the `file_search` tool; without them a `file_search` tool is a 400. */
  fileSearch?: FileSearchBackend;
  /** Opens remote MCP servers; without it an `mcp` tool is a 400. */
  mcp?: McpConnector;
  /** The containers behind `code_interpreter`; without them a `code_interpreter` tool is a 400. */
  python?: PythonBackend;
}

/**
 * `POST /v1/responses`. Everything that can be refused is refused before the first byte (so bad
 * input gets its 4xx, and a machine that cannot run the model its 503); then the run streams SSE,
 * answers JSON, or goes on in the background. The model loads inside the run: a first request to a
 * model whose weights take minutes to arrive gets `response.created` at once, not a held request.
 *
 * @example
 * const res = await createResponse(new Request(url, { method: 'POST', body }), deps);
 */
export async function createResponse(request: Request, deps: CreateDeps): Promise<Response> {
  // Each step below can take tens of milliseconds on a request near 1 MB: pace() lets the loop turn
  // between them when they add up (see common/pace.ts).
  await pace();
  const json = await readJsonObject(request, deps.maxBodyBytes);
  await pace();
  const prepared = await prepareCreate(json, {
    ...deps,
    origin: new URL(request.url).origin,
    signal: request.signal,
  });
  await pace();
  const { body } = prepared;
  if (body.background && body.store === false) {
    throw invalidRequest('background', "Background mode requires 'store' to be true.", 'invalid_value');
  }
  const response = newResponseObject(body, {
    id: newId('resp'),
    createdAt: Math.floor(deps.now() / 1000),
    tools: prepared.tools,
  });
  if (body.background) response.status = 'queued';
  if (prepared.conversationId) response.conversation = { id: prepared.conversationId };
  const persist = body.store !== false;
  if (persist) await deps.store.putResponse(record(response, prepared));
  await pace();
  if (body.background) return backgroundRun(response, prepared, deps);
  return body.stream
    ? streamRun(response, prepared, deps, persist, request.signal)
    : jsonRun(response, prepared, deps, persist, request.signal);
}

/**
 * Registers a stored run among the live ones (so DELETE can stop it, and a replay can wait for it);
 * runs that are not stored (`store: false`) cannot be named by any later request.
 */
/**
 * Events a direct stream may hold unread before its run waits for the reader (about half a MB of
 * deltas; the SSE body also holds up to its coalesce limit, encoded). A model that keeps within a
 * page's reading speed never waits; the scripted one, or any behind a busy page, writes at the
 * page's pace instead of holding its whole answer (issue 43).
 */
export const STREAM_HIGH_WATER = 2048;

function liveEntry(response: ResponseObject, deps: CreateDeps, persist: boolean, work: RequestWork) {
  return persist ? deps.live.start(response.id, work.stop, false) : null;
}

/** Ends a {@link RequestWork} (and the live entry) once the run has stored its final state. */
function settle(response: ResponseObject, deps: CreateDeps, live: LiveRun | null, work: RequestWork): void {
  work.release();
  if (live) deps.live.finish(response.id);
}

/**
 * A pushed stream of SSE frames for one direct (non-background) streamed run. It stops, stored
 * `cancelled`, when the reader cancels the body, when it leaves it unread for `streamIdleMs`, when
 * the request is aborted, or when the response is deleted.
 */
async function streamRun(
  response: ResponseObject,
  prepared: PreparedCreate,
  deps: CreateDeps,
  persist: boolean,
  requestSignal: AbortSignal,
): Promise<Response> {
  const work = followRequest(requestSignal);
  const live = liveEntry(response, deps, persist, work);
  const queue = new EventQueue<StreamEvent | SseComment>(STREAM_HIGH_WATER);
  let pastStart: () => void = () => {};
  const engineBusy = new Promise<void>((resolve) => {
    pastStart = resolve;
  });
  const run = new ResponseRun(
    response,
    (e) => {
      queue.push(e);
      if (e.type !== 'response.created' && e.type !== 'response.in_progress') pastStart();
    },
    { ...prepared.run, now: deps.now },
  );
  // No event log: resuming a stream is a background-mode feature (as at OpenAI), and logging every
  // token of a direct stream would cost more than the stream itself (see README, Performance). A
  // replay of it is rebuilt from the stored response.
  const sinks = {
    log: null,
    writeFinal: persist,
    progress: (p: LoadProgress) => queue.push(loadComment(p)),
    live,
    drain: () => queue.room(),
  };
  void execute(run, prepared, deps, work.signal, sinks).finally(() => {
    settle(response, deps, live, work);
    queue.end();
  });
  // The client went away (page abort → SW → transferred stream, or a stopped service worker): stop.
  const body = sseBody(queue.batches(), work.stop, { idleMs: deps.streamIdleMs });
  // Answered once the engine has its work: the run's steps up to the engine are microtasks, and
  // handing this Response across to the service worker (its body a transferred stream) costs the
  // thread about a millisecond that would otherwise come before the prefill starts. An engine that
  // waits for nothing (scripted) pushes its first output in those microtasks; one that waits (for
  // llama.cpp's worker, a GPU, a server) lets the next task run, and the Response goes then.
  await Promise.race([engineBusy, yieldTurn()]);
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

/** Starts a background run and answers at once: JSON with the queued response, or a stream of it. */
function backgroundRun(response: ResponseObject, prepared: PreparedCreate, deps: CreateDeps): Response {
  const abort = new AbortController();
  // Pollers read the stored record, so it is rewritten with every batch, not only at the end.
  const log = new EventLog(deps.store, response.id, deps.eventFlushMs, () =>
    record(structuredClone(response), prepared),
  );
  const live = deps.live.start(response.id, (reason) => abort.abort(reason));
  const run = new ResponseRun(
    response,
    (e) => {
      if (!live.deleted) log.add(e);
      live.push(e);
    },
    { ...prepared.run, now: deps.now },
  );
  const queued = run.snapshot();
  void execute(run, prepared, deps, abort.signal, { log, writeFinal: true, live }).finally(() =>
    deps.live.finish(response.id),
  );
  // A background stream's reader may leave and come back with starting_after: leaving only detaches.
  if (prepared.body.stream)
    return new Response(sseBody(live.follow(-1)), { status: 200, headers: SSE_HEADERS });
  return jsonResponse(queued);
}

/**
 * A non-streaming run. It stops (and is stored `cancelled`) when `requestSignal` aborts (the engine
 * worker aborts it when the service worker gives up on the request), when the client cancels the
 * early-headers body, or when the response is deleted. Chromium never aborts a service worker's
 * `FetchEvent.request.signal` when the page aborts its fetch, but it does cancel the body of a
 * response that arrives after that abort: so an abandoned request runs at most until `jsonHoldMs`.
 */
async function jsonRun(
  response: ResponseObject,
  prepared: PreparedCreate,
  deps: CreateDeps,
  persist: boolean,
  requestSignal: AbortSignal,
): Promise<Response> {
  const work = followRequest(requestSignal);
  const live = liveEntry(response, deps, persist, work);
  const run = new ResponseRun(response, () => {}, { ...prepared.run, now: deps.now });
  const finished = (async () => {
    const sinks = { log: null, writeFinal: false, live };
    const error = await execute(run, prepared, deps, work.signal, sinks);
    await pace();
    const failure =
      persist && !live?.deleted
        ? ((await storeJsonResult(deps.store, response, prepared, error)) ?? error)
        : error;
    await pace();
    return failure ? toErrorResponse(failure) : jsonResponse(response);
  })()
    .catch(toErrorResponse)
    .finally(() => settle(response, deps, live, work));

  // A service worker's respondWith may not stay pending for minutes (DESIGN.md §4).
  return holdJson(finished, deps.jsonHoldMs, work.stop);
}
