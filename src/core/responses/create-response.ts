import type { ConversationItem } from 'openai/resources/conversations/items';
import type { Response as ApiResponse, ResponseItem } from 'openai/resources/responses/responses';
import { type ApiError, invalidRequest, toApiError, toErrorResponse } from '../../common/api-error';
import { pace } from '../../common/pace';
import type { Engine, GenerateRequest, LoadProgress } from '../../engine/types';
import type { ResponseStore, StoredResponse } from '../../store/types';
import { EventQueue } from '../plumbing/event-queue';
import { jsonResponse, readJsonObject } from '../plumbing/http';
import { newId } from '../plumbing/ids';
import type { FileFetcher } from '../plumbing/input-files';
import { followRequest, holdJson, type RequestWork, untilAborted } from '../plumbing/json-hold';
import { loadComment, SSE_HEADERS, type SseComment } from '../plumbing/sse';
import { sseBody } from '../plumbing/sse-body';
import { strictOutputErrorPaced } from '../validation/strict-output';
import { EventLog } from './event-log';
import type { LiveRun, LiveRuns } from './live-runs';
import type { RunLocks } from './recovery';
import { type PreparedCreate, prepareCreate } from './request/prepare-create';
import { newResponseObject, type ResponseObject } from './response-object';
import { ResponseRun, type StreamEvent } from './response-run';

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
  await deps.engine.preflight?.(prepared.model.id, prepared.generate);
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

function record(response: ResponseObject, prepared: PreparedCreate): StoredResponse {
  return { response: response as unknown as ApiResponse, inputItems: prepared.inputItems };
}

/**
 * Where a run's results go: its event log (background runs only), whether its final state is
 * written, who hears about the model's load (direct streams only), and its entry among the live
 * runs (stored responses only), which says whether it was deleted meanwhile.
 */
interface RunSinks {
  log: EventLog | null;
  writeFinal: boolean;
  progress?: (p: LoadProgress) => void;
  live: LiveRun | null;
}

/**
 * Runs a response to its end: drives the engine into `run`, then writes the event log and the final
 * state (unless the response was deleted meanwhile). Resolves with the error that failed the run, if any.
 */
async function execute(
  run: ResponseRun,
  prepared: PreparedCreate,
  deps: CreateDeps,
  signal: AbortSignal,
  sinks: RunSinks,
): Promise<ApiError | null> {
  let release = () => {};
  if (prepared.body.store !== false)
    deps.runLocks?.hold(run.response.id, new Promise<void>((r) => (release = r)));
  try {
    return await finishRun(run, prepared, deps, signal, sinks);
  } finally {
    release();
  }
}

async function finishRun(
  run: ResponseRun,
  prepared: PreparedCreate,
  deps: CreateDeps,
  signal: AbortSignal,
  { log, writeFinal, progress, live }: RunSinks,
): Promise<ApiError | null> {
  run.start();
  const error = await drive(run, deps.engine, prepared.generate, signal, progress, () =>
    appendToConversation(run, prepared, deps, live),
  );
  if (live?.deleted) {
    // DELETE waits for this run to settle, then removes whatever it wrote before: nothing more.
    log?.discard();
    await log?.close().catch(() => {});
    return error;
  }
  try {
    await log?.close();
    await pace();
    if (writeFinal) await deps.store.putResponse(record(run.response, prepared), { durable: true });
  } catch (err) {
    // Every event has gone out already: the reader hears of it in-band, and the record says so.
    const storageError = toApiError(err);
    run.error(storageError);
    // The log keeps the error too, where it still can (no snapshot: the record is written below).
    await log?.close().catch(() => {});
    if (writeFinal) await recordUnstored(deps.store, run.response, prepared, storageError);
  }
  return error;
}

/**
 * One append of input and output together, so concurrent responses on a conversation never
 * interleave. It runs after the output items are done and before the terminal event: when it fails,
 * the response fails with its error, and the conversation (one atomic append) is left as it was.
 */
async function appendToConversation(
  run: ResponseRun,
  prepared: PreparedCreate,
  deps: CreateDeps,
  live: LiveRun | null,
): Promise<void> {
  if (!prepared.conversationId || live?.deleted) return;
  const items = [...prepared.newItems, ...(run.response.output as ResponseItem[])];
  await deps.store.appendConversationItems(prepared.conversationId, items as unknown as ConversationItem[]);
}

/**
 * After the final write of `response` failed (a full disk, say), writes what can be written: the
 * response `failed` with the storage error and without its output (which may be what did not fit),
 * else no record at all. Either way none stays `in_progress`, which only recovery at the next start
 * would end.
 */
async function recordUnstored(
  store: ResponseStore,
  response: ResponseObject,
  prepared: PreparedCreate,
  error: ApiError,
): Promise<void> {
  const failed = {
    ...structuredClone(response),
    status: 'failed' as const,
    completed_at: null,
    output: [],
    error: {
      code: error.code ?? 'server_error',
      message: `The response could not be stored, and its output was not kept: ${error.message}`,
    },
  } as ResponseObject;
  try {
    await store.putResponse(record(failed, prepared), { durable: true });
  } catch {
    await store.deleteResponse(response.id).catch(() => {});
  }
}

async function drive(
  run: ResponseRun,
  engine: Engine,
  req: GenerateRequest,
  signal: AbortSignal,
  onProgress: ((p: LoadProgress) => void) | undefined,
  beforeEnd: () => Promise<void>,
): Promise<ApiError | null> {
  try {
    // A load failure fails the response with the load's own error (model_download_failed, …).
    await untilAborted(engine.load(req.model, onProgress), signal);
    if (signal.aborted) {
      run.cancel();
      return null;
    }
    for await (const chunk of engine.generate(req, signal)) {
      if (signal.aborted) break;
      // An engine that never waits (the scripted one) would run the whole answer in one turn.
      await pace();
      if (chunk.type !== 'done') {
        run.push(chunk);
        continue;
      }
      if (chunk.finishReason !== 'length') {
        const problem = await strictOutputErrorPaced(req.format, run.response);
        if (problem) throw problem;
        await pace();
      }
      run.close(chunk.finishReason, chunk.usage);
      await beforeEnd();
      run.end();
    }
    if (signal.aborted) run.cancel();
    else if (!run.settled)
      run.fail(toApiError(new Error('The model stopped without finishing its response.')));
    return null;
  } catch (err) {
    if (signal.aborted) {
      run.cancel();
      return null;
    }
    const apiError = toApiError(err);
    run.fail(apiError);
    return apiError;
  }
}

/**
 * Registers a stored run among the live ones (so DELETE can stop it, and a replay can wait for it);
 * runs that are not stored (`store: false`) cannot be named by any later request.
 */
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
function streamRun(
  response: ResponseObject,
  prepared: PreparedCreate,
  deps: CreateDeps,
  persist: boolean,
  requestSignal: AbortSignal,
): Response {
  const work = followRequest(requestSignal);
  const live = liveEntry(response, deps, persist, work);
  const queue = new EventQueue<StreamEvent | SseComment>();
  const run = new ResponseRun(response, (e) => queue.push(e), { ...prepared.run, now: deps.now });
  // No event log: resuming a stream is a background-mode feature (as at OpenAI), and logging every
  // token of a direct stream would cost more than the stream itself (see README, Performance). A
  // replay of it is rebuilt from the stored response.
  const sinks = {
    log: null,
    writeFinal: persist,
    progress: (p: LoadProgress) => queue.push(loadComment(p)),
    live,
  };
  void execute(run, prepared, deps, work.signal, sinks).finally(() => {
    settle(response, deps, live, work);
    queue.end();
  });
  // The client went away (page abort → SW → transferred stream, or a stopped service worker): stop.
  const body = sseBody(queue, work.stop, { idleMs: deps.streamIdleMs });
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
      persist && !live?.deleted ? ((await storeJsonResult(response, prepared, deps, error)) ?? error) : error;
    await pace();
    return failure ? toErrorResponse(failure) : jsonResponse(response);
  })()
    .catch(toErrorResponse)
    .finally(() => settle(response, deps, live, work));

  // A service worker's respondWith may not stay pending for minutes (DESIGN.md §4).
  return holdJson(finished, deps.jsonHoldMs, work.stop);
}

/**
 * Stores a JSON run's final state. A request refused by the engine before any output (context too
 * long, say) leaves nothing behind. Resolves with the storage error when the write failed (the
 * client gets it as the answer; the record is marked failed, see {@link recordUnstored}).
 */
async function storeJsonResult(
  response: ResponseObject,
  prepared: PreparedCreate,
  deps: CreateDeps,
  error: ApiError | null,
): Promise<ApiError | null> {
  try {
    if (error && error.status < 500 && response.output.length === 0)
      await deps.store.deleteResponse(response.id);
    else await deps.store.putResponse(record(response, prepared), { durable: true });
    return null;
  } catch (err) {
    const storageError = toApiError(err);
    await recordUnstored(deps.store, response, prepared, storageError);
    return storageError;
  }
}
