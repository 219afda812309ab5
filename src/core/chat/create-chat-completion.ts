import { ApiError, toApiError, toErrorResponse } from '../../common/api-error';
import type { Engine, LoadProgress } from '../../engine/types';
import type { FileContentReader } from '../hosted/contracts';
import { EventQueue } from '../http/event-queue';
import { newChatCompletionId } from '../http/ids';
import { jsonResponse, readJsonObject } from '../http/json-body';
import { followRequest, holdJson, type RequestWork, untilAborted, within } from '../http/json-hold';
import { loadComment, SSE_HEADERS, type SseFrame } from '../http/sse';
import { sseBody } from '../http/sse-body';
import type { FileFetcher } from '../inputs/input-files';
import { strictTextErrorPaced } from '../validation/strict-output';
import { ChatCompletionRun, type ChatRunOptions } from './chat-completion-run';
import { type PreparedChat, prepareChat } from './prepare-chat';

export interface ChatDeps {
  engine: Engine;
  now: () => number;
  maxBodyBytes: number;
  /** How long a request may wait for its status line before headers go out early (DESIGN.md §4). */
  jsonHoldMs: number;
  /** A stream left unread this long is abandoned and its generation stops (see `sseBody`). */
  streamIdleMs?: number;
  /** Reads `blob:` image URLs before the run (see `readBlobImage`); without it the engine does. */
  fetchFile?: FileFetcher;
  /** Reads `file.file_id` parts from `/v1/files`. */
  readFile?: FileContentReader;
}

/**
 * `POST /v1/chat/completions`: OpenAI's Chat Completions on the same engines as responses. Nothing
 * is stored (`store: true` is accepted and has no effect: intab keeps no chat completions to list).
 * Bad input and a model that cannot run here are refused before any header; the model then loads
 * inside the answer, as for responses. A streamed answer sends its headers with its first frame (a
 * chunk, or a load progress comment), so an engine failure before any output still gets its HTTP
 * status; a failure after that is an error frame, `data: {"error":{…}}`, as OpenAI sends it.
 *
 * @example
 * const res = await createChatCompletion(new Request(url, { method: 'POST', body }), deps);
 */
export async function createChatCompletion(request: Request, deps: ChatDeps): Promise<Response> {
  const json = await readJsonObject(request, deps.maxBodyBytes);
  const prepared = await prepareChat(json, deps.engine, new URL(request.url).origin, {
    fetchFile: deps.fetchFile,
    readFile: deps.readFile,
    maxBytes: deps.maxBodyBytes,
  });
  await preflight(deps.engine, prepared);
  const opts: ChatRunOptions = {
    id: newChatCompletionId(),
    created: Math.floor(deps.now() / 1000),
    model: prepared.model.id,
    logprobs: prepared.logprobs,
    includeUsage: prepared.stream && prepared.includeUsage,
    maxToolCalls: prepared.maxToolCalls,
    customTools: prepared.customTools,
    stop: prepared.stop,
    promptTokens: prepared.promptTokens,
  };
  const work = followRequest(request.signal);
  return prepared.stream ? streamChat(prepared, opts, deps, work) : jsonChat(prepared, opts, deps, work);
}

/** Engines name a request's params as the Responses API does; Chat Completions has its own names. */
const CHAT_PARAMS: [RegExp, string][] = [
  [/^text\.format\.schema(?=$|[.[])/, 'response_format.json_schema.schema'],
  [/^text\.format$/, 'response_format'],
  [/^tools\[(\d+)\]\.parameters(?=$|[.[])/, 'tools[$1].function.parameters'],
];

/**
 * The Chat Completions name of a param an engine names in the Responses form (engines speak one
 * form), keeping any path below it (`tools[0].parameters.properties.a.pattern`); undefined for a
 * param with no Chat Completions counterpart.
 *
 * @example
 * chatParam('tools[2].parameters'); // 'tools[2].function.parameters'
 */
export function chatParam(param: string): string | undefined {
  for (const [from, to] of CHAT_PARAMS) if (from.test(param)) return param.replace(from, to);
  return undefined;
}

/** The engine's checks before any header, its errors naming Chat Completions' params. */
async function preflight(engine: Engine, prepared: PreparedChat): Promise<void> {
  try {
    await engine.preflight?.(prepared.model.id, prepared.generate);
  } catch (e) {
    const param = e instanceof ApiError && e.param ? chatParam(e.param) : undefined;
    if (!(e instanceof ApiError) || !param) throw e;
    throw new ApiError(e.status, e.type, e.code, param, e.message);
  }
}

/**
 * Loads the model (reporting progress), then generates into `run` until it settles, a stop
 * sequence ends it, or `signal` aborts. Rejects with the engine's error.
 */
async function drive(
  run: ChatCompletionRun,
  prepared: PreparedChat,
  engine: Engine,
  signal: AbortSignal,
  onProgress?: (p: LoadProgress) => void,
): Promise<void> {
  const req = prepared.generate;
  await untilAborted(engine.load(req.model, onProgress), signal);
  if (signal.aborted) return;
  for await (const chunk of engine.generate(req, signal)) {
    if (signal.aborted) return;
    if (chunk.type === 'done' && chunk.finishReason !== 'length') {
      const problem = await strictTextErrorPaced(
        req.format,
        run.completion().choices[0]?.message.content ?? null,
      );
      if (problem) throw problem;
    }
    // Leaving the loop returns the engine's iterator, which stops generation (a stop sequence came).
    if (run.push(chunk)) return;
  }
  if (!signal.aborted && !run.settled) throw new Error('The model stopped without finishing its response.');
}

function jsonChat(
  prepared: PreparedChat,
  opts: ChatRunOptions,
  deps: ChatDeps,
  work: RequestWork,
): Promise<Response> {
  const run = new ChatCompletionRun(opts, () => {});
  const finished = drive(run, prepared, deps.engine, work.signal).then(
    () => (work.signal.aborted ? toErrorResponse(goneError()) : jsonResponse(run.completion())),
    (err: unknown) => toErrorResponse(err),
  );
  return holdJson(finished, deps.jsonHoldMs, work.stop);
}

async function streamChat(
  prepared: PreparedChat,
  opts: ChatRunOptions,
  deps: ChatDeps,
  work: RequestWork,
): Promise<Response> {
  const queue = new EventQueue<SseFrame>();
  let framed = false;
  let committed = false;
  let early: ApiError | null = null;
  let firstFrame = (): void => {};
  const framedOnce = new Promise<void>((resolve) => {
    firstFrame = resolve;
  });
  const push = (frame: SseFrame): void => {
    framed = true;
    queue.push(frame);
    firstFrame();
  };
  const run = new ChatCompletionRun(opts, (chunk) => push({ data: chunk }));
  const done = drive(run, prepared, deps.engine, work.signal, (p) => push(loadComment(p)))
    .then(
      () => {
        if (!work.signal.aborted) push({ data: '[DONE]' });
      },
      (err: unknown) => {
        if (work.signal.aborted) return;
        const error = toApiError(err);
        // Nothing sent yet: the failure still gets its HTTP status. Later, OpenAI's error frame.
        if (!committed && !framed) early = error;
        else push({ data: { error: error.toJSON().error } });
      },
    )
    .finally(() => queue.end());

  await within(Promise.race([framedOnce, done]), deps.jsonHoldMs);
  committed = true;
  if (early) return toErrorResponse(early);
  // The client went away (page abort → SW → transferred stream): stop generating now.
  return new Response(sseBody(queue.batches(), work.stop, { idleMs: deps.streamIdleMs }), {
    status: 200,
    headers: SSE_HEADERS,
  });
}

function goneError(): ApiError {
  return new ApiError(
    499,
    'invalid_request_error',
    'client_closed_request',
    null,
    'The client went away before the completion finished.',
  );
}
