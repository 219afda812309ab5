import type { WorkerLike } from '../../src/sandbox';

/**
 * A test double of a Python sandbox worker for Node: it answers each call through `answer` (which
 * may never answer, to stand for an infinite loop), and records what it was sent and whether it was
 * terminated. `forge` posts any message as if model-written code had sent it.
 */
export class SandboxWorkerDouble implements WorkerLike {
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  terminated = false;
  readonly calls: { id: number; code: string }[] = [];
  /** The init messages it was sent (the host sends one first, before any call). */
  readonly inits: unknown[] = [];

  constructor(
    private readonly answer: (code: string) => { stdout?: string; stderr?: string } | 'hang' = () => ({}),
  ) {}

  postMessage(message: unknown): void {
    if (typeof message === 'object' && message !== null && 'init' in message) {
      this.inits.push(message);
      return;
    }
    const call = message as { id: number; code: string };
    this.calls.push(call);
    const a = this.answer(call.code);
    if (a === 'hang') return;
    queueMicrotask(() => {
      if (!this.terminated)
        this.onmessage?.({
          data: { id: call.id, stdout: a.stdout ?? '', stderr: a.stderr ?? '', files: [] },
        });
    });
  }

  forge(data: unknown): void {
    this.onmessage?.({ data });
  }

  terminate(): void {
    this.terminated = true;
  }
}
