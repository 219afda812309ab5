import type { StreamEvent } from './response-run';

/**
 * A background response while it runs: its events so far (for `GET ?stream=true&starting_after=N`
 * readers who join late), its listeners, and the switch that cancels it.
 */
export class LiveRun {
  readonly events: StreamEvent[] = [];
  private readonly listeners = new Set<(e: StreamEvent | null) => void>();
  finished = false;
  /** Resolves once the run's final state is stored. */
  readonly settled: Promise<void>;
  private resolveSettled!: () => void;

  constructor(readonly abort: AbortController) {
    this.settled = new Promise((r) => {
      this.resolveSettled = r;
    });
  }

  push(event: StreamEvent): void {
    this.events.push(event);
    for (const l of this.listeners) l(event);
  }

  end(): void {
    this.finished = true;
    this.resolveSettled();
    for (const l of this.listeners) l(null);
    this.listeners.clear();
  }

  /**
   * Events with `sequence_number > after`, then live ones until the run ends, as one iterable.
   * Stopping the iteration (a reader going away) only detaches the reader; the run goes on.
   */
  async *follow(after: number): AsyncGenerator<StreamEvent> {
    const queue: (StreamEvent | null)[] = this.events.filter((e) => e.sequence_number > after);
    if (this.finished) queue.push(null);
    let wake: (() => void) | null = null;
    const listener = (e: StreamEvent | null) => {
      queue.push(e);
      wake?.();
    };
    if (!this.finished) this.listeners.add(listener);
    try {
      for (;;) {
        const next = queue.shift();
        if (next === null) return;
        if (next) {
          yield next;
          continue;
        }
        await new Promise<void>((r) => {
          wake = r;
        });
        wake = null;
      }
    } finally {
      this.listeners.delete(listener);
    }
  }
}

/**
 * The background runs of this server instance, by response id. Only the engine worker that runs a
 * response knows it is live; stored state says the rest.
 */
export class LiveRuns {
  private readonly runs = new Map<string, LiveRun>();

  start(id: string, abort: AbortController): LiveRun {
    const run = new LiveRun(abort);
    this.runs.set(id, run);
    return run;
  }

  get(id: string): LiveRun | undefined {
    return this.runs.get(id);
  }

  /** Forgets a finished run once its final state is stored. */
  finish(id: string): void {
    this.runs.get(id)?.end();
    this.runs.delete(id);
  }
}
