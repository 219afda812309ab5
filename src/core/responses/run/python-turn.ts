import type { EngineChunk } from '../../../engine/types';
import {
  ContainerFileNames,
  LiveCodeCall,
  newPythonId,
  type PythonBackend,
  runCodeInterpreterCall,
} from '../../hosted';
import { PYTHON_NAME } from '../request/tools/code-interpreter-tool';
import type { HostedTurn, LoopState } from './loop-state';
import type { ResponseRun } from './response-run';

/**
 * One `python` call the model made, run by the loop (run-loop.ts) as `code_interpreter`: its
 * `code_interpreter_call` item streams as it runs, and its logs become the tool result the next
 * pass reads. From then on, the answer cites the files code wrote in the container where it names them.
 *
 * @example
 * outcome.hosted.push(await runPythonTurn(run, chunk, state, deps.python, signal));
 */
export async function runPythonTurn(
  run: ResponseRun,
  chunk: EngineChunk & { type: 'tool_call' },
  state: LoopState,
  backend: PythonBackend | undefined,
  signal: AbortSignal,
  live?: LiveCodeCall,
): Promise<HostedTurn> {
  const plan = state.codeInterpreter;
  // prepareCreate refuses a code_interpreter tool without a backend; this is the same rule, held here.
  if (!plan || !backend) throw new Error('code_interpreter ran without a Python sandbox.');
  const id = live?.item.id ?? newPythonId('ci');
  const containerId = plan.container();
  const { text } = await runCodeInterpreterCall(
    run.hostedOutput(),
    chunk.arguments,
    { backend, containerId, includeOutputs: plan.includeOutputs },
    { id, signal, ...(live ? { live } : {}) },
  );
  const written = backend.writtenFiles(containerId).map((f) => ({ ...f, container_id: containerId }));
  run.mentions.watch(new ContainerFileNames(written));
  return {
    call: { id, type: 'function', function: { name: chunk.name, arguments: chunk.arguments } },
    result: text,
    parts: 1,
    // A log is not cut into excerpts: what does not fit is cut from its end.
    shorter: (keep) => (keep >= 1 ? text : `${text.slice(0, 2000)}\n[output cut to fit the model's context]`),
  };
}

/**
 * Follows the `python` call the engine is writing in one pass (its `tool_call_delta` chunks), so
 * its `code_interpreter_call` item is added and its code streams while the model writes it. Only a
 * call the loop would run is followed (code_interpreter offered, under `max_tool_calls`, not an
 * MCP tool's name); other partial calls are skipped, and their whole calls go on as before.
 *
 * @example
 * const watch = new CodeCallWatch(run, state, offered, () => flushCitations());
 * watch.delta(chunk); // a tool_call_delta
 * const live = watch.take(callIndex, chunk.name); // at the tool_call of that index
 */
export class CodeCallWatch {
  private live: LiveCodeCall | null = null;
  private liveIndex = -1;
  private skipped = -1;

  constructor(
    private readonly run: ResponseRun,
    private readonly state: LoopState,
    private readonly offered: ReadonlySet<string>,
    /** Runs before the item is added (text held back goes out first). */
    private readonly beforeStart: () => void,
  ) {}

  delta(chunk: EngineChunk & { type: 'tool_call_delta' }): void {
    if (this.live && chunk.index === this.liveIndex) {
      this.live.push(chunk.arguments_delta);
      return;
    }
    if (chunk.index === this.skipped) return;
    this.abandon('failed');
    const { state } = this;
    const plan = state.codeInterpreter;
    const runs =
      plan !== null &&
      chunk.name === PYTHON_NAME &&
      state.isHosted(PYTHON_NAME) &&
      !state.mcpTarget(PYTHON_NAME) &&
      this.offered.has(PYTHON_NAME) &&
      state.hostedCalls < state.maxHostedCalls;
    if (!runs) {
      this.skipped = chunk.index;
      return;
    }
    this.beforeStart();
    this.live = new LiveCodeCall(this.run.hostedOutput(), newPythonId('ci'), plan.container());
    this.liveIndex = chunk.index;
    this.live.push(chunk.arguments_delta);
  }

  /**
   * The live call of the whole call at `index`, handed over to run when that call is `python`; any
   * other one open (or one whose whole call named another tool) is abandoned.
   */
  take(index: number, name: string): LiveCodeCall | undefined {
    if (!this.live || this.liveIndex !== index || name !== PYTHON_NAME) {
      this.abandon('failed');
      return undefined;
    }
    const live = this.live;
    this.live = null;
    return live;
  }

  /**
   * Ends a followed call that no whole call completed (`incomplete` when it was cut or stopped). The
   * engine's next call may reuse the index of one that parsed into no call, so none is skipped after.
   */
  abandon(status: 'failed' | 'incomplete'): void {
    this.live?.abandon(status);
    this.live = null;
    this.skipped = -1;
  }
}
