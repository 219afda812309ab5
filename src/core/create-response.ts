import type { Response as ApiResponse } from 'openai/resources/responses/responses';
import type { Engine, GenerateRequest } from '../engine/types';
import type { ResponseStore, StoredResponse } from '../store/types';
import { type ApiError, toApiError } from './api-error';
import { EventLog } from './event-log';
import { jsonResponse, readJsonObject } from './http';
import { newId } from './ids';
import { type PreparedCreate, prepareCreate } from './prepare-create';
import { newResponseObject, type ResponseObject } from './response-object';
import { ResponseRun, type StreamEvent } from './response-run';
import { encodeSseEvent, SSE_HEADERS } from './sse';

export interface CreateDeps {
  engine: Engine;
  store: ResponseStore;
  now: () => number;
  maxBodyBytes: number;
  /** How long a non-streaming request may wait for its status line before headers go out early. */
  jsonHoldMs: number;
  eventFlushMs: number;
}

/**
 * `POST /v1/responses`. Everything that can be refused is refused before the first byte (so bad
 * input gets its 4xx); then the run streams SSE or answers JSON.
 *
 * @example
 * const res = await createResponse(new Request(url, { method: 'POST', body }), deps);
 */
export async function createResponse(request: Request, deps: CreateDeps): Promise<Response> {
  const json = await readJsonObject(request, deps.maxBodyBytes);
  const prepared = await prepareCreate(json, deps);
  await deps.engine.load(prepared.model.id);
  const response = newResponseObject(prepared.body, {
    id: newId('resp'),
    createdAt: Math.floor(deps.now() / 1000),
    tools: prepared.tools,
  });
  const persist = prepared.body.store !== false;
  if (persist) await deps.store.putResponse(record(response, prepared));
  return prepared.body.stream
    ? streamRun(response, prepared, deps, persist)
    : jsonRun(response, prepared, deps, persist);
}

function record(response: ResponseObject, prepared: PreparedCreate): StoredResponse {
  return { response: response as unknown as ApiResponse, inputItems: prepared.inputItems };
}

/** Drives the engine into the run; resolves with the error that failed it, if any. */
async function drive(
  run: ResponseRun,
  engine: Engine,
  req: GenerateRequest,
  signal: AbortSignal,
): Promise<ApiError | null> {
  try {
    for await (const chunk of engine.generate(req, signal)) {
      if (signal.aborted) break;
      run.push(chunk);
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

function streamRun(
  response: ResponseObject,
  prepared: PreparedCreate,
  deps: CreateDeps,
  persist: boolean,
): Response {
  const abort = new AbortController();
  const encoder = new TextEncoder();
  const log = persist ? new EventLog(deps.store, response.id, deps.eventFlushMs) : null;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  const emit = (event: StreamEvent) => {
    log?.add(event);
    if (open) controller.enqueue(encoder.encode(encodeSseEvent(event)));
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    // The client went away (page abort → SW → transferred stream): stop generating now.
    cancel() {
      open = false;
      abort.abort(new DOMException('The client cancelled the stream.', 'AbortError'));
    },
  });
  const run = new ResponseRun(response, emit, {
    logprobs: prepared.generate.topLogprobs !== null,
    now: deps.now,
  });
  void (async () => {
    run.start();
    await drive(run, deps.engine, prepared.generate, abort.signal);
    try {
      await log?.close();
      if (persist) await deps.store.putResponse(record(response, prepared), { durable: true });
    } catch (err) {
      // The client already has every event; a storage failure can only be reported in-band.
      run.error(toApiError(err));
    }
    if (open) {
      open = false;
      controller.close();
    }
  })();
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

async function jsonRun(
  response: ResponseObject,
  prepared: PreparedCreate,
  deps: CreateDeps,
  persist: boolean,
): Promise<Response> {
  const run = new ResponseRun(response, () => {}, {
    logprobs: prepared.generate.topLogprobs !== null,
    now: deps.now,
  });
  const finished = (async () => {
    const error = await drive(run, deps.engine, prepared.generate, new AbortController().signal);
    if (persist) {
      // A request refused by the engine before any output (context too long, say) leaves nothing behind.
      if (error && error.status < 500 && response.output.length === 0)
        await deps.store.deleteResponse(response.id);
      else await deps.store.putResponse(record(response, prepared), { durable: true });
    }
    return error ? jsonResponse(error.toJSON(), error.status) : jsonResponse(response);
  })().catch((err) => jsonResponse(toApiError(err).toJSON(), toApiError(err).status));

  // A service worker's respondWith may not stay pending for minutes; past the hold, send headers
  // now and the JSON when it is ready (DESIGN.md §4).
  let timer: ReturnType<typeof setTimeout> | undefined;
  const held = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), deps.jsonHoldMs);
  });
  const early = await Promise.race([finished, held]);
  clearTimeout(timer);
  if (early) return early;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const late = await finished;
      controller.enqueue(new Uint8Array(await late.arrayBuffer()));
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
}
