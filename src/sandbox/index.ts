/**
 * The Python sandbox behind `code_interpreter`: the worker that runs Pyodide (`python-worker.ts`,
 * its own module worker), what it does with a loaded Pyodide (`python-runtime.ts`), the messages
 * and bounds between it and the engine worker (`protocol.ts`), how it starts (`python-start.ts`, from
 * the interpreter snapshot of `snapshot.ts` when the host keeps one), and the engine side that starts,
 * bounds and stops the sandboxes (`sandbox-host.ts`).
 *
 * @example
 * import { SandboxHost } from '../sandbox';
 */
export * from './protocol';
export * from './sandbox-host';
export * from './snapshot';
export * from './start-worker';
