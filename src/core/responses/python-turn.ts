import type { EngineChunk } from '../../engine/types';
import { ContainerFileNames, newPythonId, type PythonBackend, runCodeInterpreterCall } from '../hosted';
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
): Promise<HostedTurn> {
  const plan = state.codeInterpreter;
  // prepareCreate refuses a code_interpreter tool without a backend; this is the same rule, held here.
  if (!plan || !backend) throw new Error('code_interpreter ran without a Python sandbox.');
  const id = newPythonId('ci');
  const containerId = plan.container();
  const { text } = await runCodeInterpreterCall(
    run.hostedOutput(),
    chunk.arguments,
    { backend, containerId, includeOutputs: plan.includeOutputs },
    { id, signal },
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
