import type { StreamEvent } from './response-run';

/**
 * A stored response while it runs, in any mode: the switch that stops it (cancel, delete), whether
 * it was deleted meanwhile (then nothing it writes later may bring it back), and when it has settled
 * (its final state written). A background response also keeps its events so far, for
 * `GET ?stream=true&starting_after=N` readers who join late, and its listeners.
 */
export class LiveRun {
  readonly events: StreamEvent[] = [];
  private readonly listeners = new Set<(e: StreamEvent | null) => void>();
  finished = false;
  /** Set by `DELETE`: the run stops, and must not write its record, log or conversation items again. */
  deleted = false;
  /** Resolves once the run's final state is stored (or, when it was deleted, once it stopped). */
  readonly settled: Promise<void>;
  private resolveSettled!: () => void;

  constructor(
    /** Stops the run within one token; it then ends `cancelled`. */
    readonly stop: (reason?: unknown) => void,
    /** Whether its events are kept and followed (background responses); other runs replay once settled. */
    readonly followable = true,
  ) {
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
 * The stored responses running in this server instance, by response id. Only the engine worker that
 * runs a response knows it is live; stored state says the rest.
 */
export class LiveRuns {
  private readonly runs = new Map<string, LiveRun>();

  /** Registers a run; `followable` for background runs, whose events readers may follow live. */
  start(id: string, stop: (reason?: unknown) => void, followable = true): LiveRun {
    const run = new LiveRun(stop, followable);
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
