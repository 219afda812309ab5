import { type ApiError, toApiError } from '../../../common/api-error';
import { pace } from '../../../common/pace';
import { callableTools } from '../../../engine/tool-formats/request-plan';
import type { Engine, EngineChunk, GenerateRequest, LoadProgress } from '../../../engine/types';
import {
  CitationFilter,
  type FileSearchBackend,
  type LiveCodeCall,
  type McpSessions,
  type PythonBackend,
  runFileSearchCall,
} from '../../hosted';
import { newId } from '../../http/ids';
import { untilAborted } from '../../http/json-hold';
import { lazyModule } from '../../http/lazy-module';
import { strictOutputErrorPaced } from '../../validation/strict-output';
import type { PreparedCreate } from '../request/prepare-create';
import { PYTHON_NAME } from '../request/tools/code-interpreter-tool';
import { fitTurns } from './fit-turns';
import { type HostedTurn, LoopState, type PassOutcome } from './loop-state';
import type { CodeCallWatch } from './python-turn';
import type { ResponseRun } from './response-run';

/** The MCP turns (and the MCP client's sessions): loaded by the first response with an `mcp` tool. */
const mcpTurns = lazyModule('MCP', () => import('./mcp-turn'));

/** `code_interpreter`'s turns and its code streaming: loaded by the first response that offers it. */
const pythonTurns = lazyModule('code_interpreter', () => import('./python-turn'));
type PythonTurns = Awaited<ReturnType<typeof pythonTurns>>;

/** A response's MCP: the loaded turns and the sessions with its servers. */
type McpRun = { turns: Awaited<ReturnType<typeof mcpTurns>>; sessions: McpSessions };

/** The watch of a pass that offers no `python`: it follows nothing, as a CodeCallWatch would not. */
const NO_WATCH: Pick<CodeCallWatch, 'delta' | 'take' | 'abandon'> = {
  delta: () => {},
  take: () => undefined,
  abandon: () => {},
};

/**
 * The run stage of `POST /v1/responses`: the engine passes of one response, and the hosted tool
 * calls between them. A pass streams into the run; a call to a hosted tool (by its model-facing
 * name) is not surfaced as `function_call` but run here, its item streamed, and its result handed
 * to the next pass. The loop ends at a pass that made no hosted call (a message, or client function
 * calls), at `max_output_tokens` (`incomplete`), or at {@link MAX_ENGINE_PASSES}.
 */

/** What the loop runs hosted tools with. */
export interface LoopDeps {
  engine: Engine;
  fileSearch?: FileSearchBackend;
  /** The containers `code_interpreter` runs in. */
  python?: PythonBackend;
  /**
   * Null while the run's reader keeps up, else a wait until it has read on (a direct stream's
   * `EventQueue.room`): the loop asks between chunks, so the events a reader has not taken stay
   * bounded however fast the engine writes.
   */
  drain?: () => Promise<void> | null;
}

/**
 * How the run stage left the run: `closed` (every item done, usage set, the terminal event still to
 * send once the persist stage has appended to the conversation), or `settled` (failed or cancelled
 * already, with the error that failed it, if any).
 */
export type RunOutcome = { kind: 'closed' } | { kind: 'settled'; error: ApiError | null };

/** Loads the model and runs the passes, leaving the run {@link RunOutcome closed} or settled. */
export async function drive(
  run: ResponseRun,
  prepared: PreparedCreate,
  deps: LoopDeps,
  signal: AbortSignal,
  onProgress: ((p: LoadProgress) => void) | undefined,
): Promise<RunOutcome> {
  const settled = (error: ApiError | null = null): RunOutcome => ({ kind: 'settled', error });
  // Python is likely: its sandbox loads while the model loads and writes the code (not at page load).
  prepared.hosted.codeInterpreter?.prewarm();
  try {
    // A load failure fails the response with the load's own error (model_download_failed, …).
    await untilAborted(deps.engine.load(prepared.generate.model, onProgress), signal);
    if (signal.aborted) {
      run.cancel();
      return settled();
    }
    const state = new LoopState(prepared);
    const python = prepared.hosted.codeInterpreter ? await pythonTurns() : null;
    const plan = prepared.hosted.mcp;
    const turns = plan ? await mcpTurns() : null;
    const mcp: McpRun | null =
      plan && turns ? { turns, sessions: new turns.McpSessions(plan.servers, plan.connector, signal) } : null;
    let end: PassOutcome | null;
    try {
      if (mcp) await mcp.turns.startMcp(run, state, mcp.sessions, signal);
      end = await runPasses(run, state, { ...deps, mcp, turns: python }, signal);
    } finally {
      await mcp?.sessions.closeAll();
    }
    if (signal.aborted) {
      run.cancel();
      return settled();
    }
    if (!end) {
      run.fail(toApiError(new Error('The model stopped without finishing its response.')));
      return settled();
    }
    if (end.reason !== 'length') {
      const problem = await strictOutputErrorPaced(prepared.generate.format, run.response);
      if (problem) throw problem;
      await pace();
    }
    run.close(end.reason, state.total);
    return { kind: 'closed' };
  } catch (err) {
    return settled(failOrCancel(run, err, signal));
  }
}

/**
 * Ends `run` after `err`: cancelled when `signal` says the run was stopped (an abort surfaces as
 * whatever the engine or the tool threw), else failed with the error, which it returns.
 */
export function failOrCancel(run: ResponseRun, err: unknown, signal: AbortSignal): ApiError | null {
  if (signal.aborted) {
    run.cancel();
    return null;
  }
  const apiError = toApiError(err);
  run.fail(apiError);
  return apiError;
}

/** Runs passes until one ends the response; null when the engine stopped without a `done`. */
async function runPasses(
  run: ResponseRun,
  state: LoopState,
  deps: LoopDeps & { mcp: McpRun | null; turns: PythonTurns | null },
  signal: AbortSignal,
): Promise<PassOutcome | null> {
  for (;;) {
    const req = state.nextRequest();
    const outcome = await onePass(run, state, req, deps, signal);
    if (!outcome || signal.aborted) return null;
    // The results must fit the next pass's context; the next pass offers at most the same tools.
    if (outcome.hosted.length > 0) await fitTurns(outcome, state, req, deps.engine, signal);
    state.record(outcome);
    if (
      outcome.reason === 'length' ||
      outcome.functionCalls > 0 ||
      outcome.approvals > 0 ||
      outcome.hosted.length === 0
    )
      return outcome;
    // The tools ran; the next pass reads their results, in items of its own. Out of output
    // budget, it cannot write a word.
    run.closeItems();
    const left = state.outputLeft;
    if (left !== null && left <= 0) return { ...outcome, reason: 'length' };
  }
}

/**
 * One engine pass. Text goes through the citation filter once a search has handed out markers;
 * hosted calls run as they arrive (so their items sit where the model made them), up to
 * `max_tool_calls` (calls past it, or made when no hosted tool was offered, are ignored).
 */
async function onePass(
  run: ResponseRun,
  state: LoopState,
  req: GenerateRequest,
  deps: LoopDeps & { mcp: McpRun | null; turns: PythonTurns | null },
  signal: AbortSignal,
): Promise<PassOutcome | null> {
  const offered = new Set(callableTools(req).map((t) => t.name));
  const outcome: Omit<PassOutcome, 'reason' | 'usage'> = {
    text: '',
    reasoning: '',
    hosted: [],
    functionCalls: 0,
    approvals: 0,
  };
  // Renewed after each search: a filter knows the markers handed out before it was made.
  let cited = state.sources.size > 0 ? new CitationFilter(state.sources) : null;
  const flushCited = () => {
    // Text held back as a possible marker goes out before whatever comes next.
    const rest = cited?.flush();
    if (rest) run.push({ type: 'text', delta: rest });
  };
  // A `python` call's code streams while the model writes it; `calls` is the next call's index.
  const watch = deps.turns ? new deps.turns.CodeCallWatch(run, state, offered, flushCited) : NO_WATCH;
  let calls = 0;
  try {
    for await (const chunk of deps.engine.generate(req, signal)) {
      if (signal.aborted) return null;
      // An engine that never waits (the scripted one) would run the whole answer in one turn.
      await pace();
      // A reader that stops reading is the stream's idle bound's to end: its abort ends this wait too.
      const room = deps.drain?.();
      if (room) await untilAborted(room, signal);
      if (signal.aborted) return null;
      if (chunk.type === 'tool_call_delta') {
        watch.delta(chunk);
        continue;
      }
      let live: LiveCodeCall | undefined;
      if (chunk.type === 'tool_call') live = watch.take(calls++, chunk.name);
      // A call cut by the token limit is `incomplete`, as the response is; one that parsed into no call `failed`.
      else watch.abandon(chunk.type === 'done' && chunk.finishReason === 'length' ? 'incomplete' : 'failed');
      if (chunk.type !== 'text') flushCited();
      switch (chunk.type) {
        case 'done':
          return { ...outcome, reason: chunk.finishReason, usage: chunk.usage };
        case 'tool_call':
          if (!state.isHosted(chunk.name)) {
            outcome.functionCalls += 1;
            break;
          }
          // Calls past max_tool_calls, or to a tool this pass was not offered, are ignored.
          if (!offered.has(chunk.name) || state.hostedCalls >= state.maxHostedCalls) continue;
          state.hostedCalls += 1;
          if (deps.mcp && state.mcpTarget(chunk.name)) {
            const turn = await deps.mcp.turns.mcpCall(run, chunk, state, deps.mcp.sessions, signal);
            if (turn) outcome.hosted.push(turn);
            else outcome.approvals += 1;
            if (signal.aborted) return null;
            continue;
          }
          outcome.hosted.push(await runHostedCall(run, chunk, state, deps, signal, live));
          if (signal.aborted) return null;
          cited = new CitationFilter(state.sources);
          continue;
        case 'reasoning':
          outcome.reasoning += chunk.delta;
          break;
        case 'text':
          outcome.text += chunk.delta;
          if (cited) {
            pushCited(run, cited, chunk);
            continue;
          }
          break;
      }
      run.push(chunk);
    }
    return null;
  } finally {
    // A call followed but never completed (the pass ended, or was stopped, inside it).
    watch.abandon(signal.aborted ? 'incomplete' : 'failed');
  }
}

/**
 * Runs one hosted call the model made (its item streams as it runs) and returns it with the tool
 * result for the next pass. One case per hosted tool: `file_search` today.
 */
async function runHostedCall(
  run: ResponseRun,
  chunk: EngineChunk & { type: 'tool_call' },
  state: LoopState,
  deps: LoopDeps & { turns: PythonTurns | null },
  signal: AbortSignal,
  live?: LiveCodeCall,
): Promise<HostedTurn> {
  if (chunk.name === PYTHON_NAME) {
    // prepareCreate refuses a code_interpreter tool without a backend; its turns load with the plan.
    if (!deps.turns) throw new Error('code_interpreter ran without a Python sandbox.');
    return deps.turns.runPythonTurn(run, chunk, state, deps.python, signal, live);
  }
  const id = newId('fs');
  const setup = {
    tool: state.fileSearchTool,
    backend: requireBackend(deps),
    includeResults: state.includeResults,
  };
  const found = await runFileSearchCall(run.hostedOutput(), chunk.arguments, setup, {
    id,
    signal,
    sources: state.sources,
  });
  return {
    call: { id, type: 'function', function: { name: chunk.name, arguments: chunk.arguments } },
    result: found.text,
    parts: found.excerpts,
    shorter: found.shorter,
  };
}

/** A text chunk through the citation filter: its text streams, its markers become annotations. */
function pushCited(run: ResponseRun, filter: CitationFilter, chunk: EngineChunk & { type: 'text' }): void {
  let logprobs = chunk.logprobs;
  for (const piece of filter.push(chunk.delta)) {
    if (piece.type === 'cite') {
      run.cite(piece.source);
      continue;
    }
    // Logprobs ride on the chunk's first text out; a marker's own tokens are cut with it.
    run.push({ type: 'text', delta: piece.text, ...(logprobs && { logprobs }) });
    logprobs = undefined;
  }
}

function requireBackend(deps: LoopDeps): FileSearchBackend {
  // prepareCreate refuses a file_search tool without a backend; this is the same rule, held here.
  if (!deps.fileSearch) throw new Error('file_search ran without a vector store backend.');
  return deps.fileSearch;
}
