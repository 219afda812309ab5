/**
 * The order Python calls run in (issue 38 §3.5): one call at a time per container, in order, and a
 * call that needs a sandbox while every allowed one is busy waits, first come first served, instead
 * of starting one more. The host says when there is room and hands out the sandbox; the queue only
 * orders, so it is tested apart from any worker.
 */

/** A call waiting for room: its key (container), and how to hand it its slot. */
interface Waiter<Slot> {
  key: string;
  give: (slot: Slot) => void;
}

/** How the queue reaches the host: whether a call for `key` may have a slot now, and taking one. */
export interface CallQueueHost<Slot> {
  hasRoom(key: string): boolean;
  take(key: string): Slot;
  release(slot: Slot): void;
}

/**
 * @example
 * const queue = new CallQueue(host);
 * const run = await queue.within('cntr_1', signal, (box) => host.runIn(box, …), cancelled);
 */
export class CallQueue<Slot> {
  private readonly waiters: Waiter<Slot>[] = [];
  /** Each key's last call: the next call of that key waits for it. */
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly host: CallQueueHost<Slot>) {}

  /**
   * Runs `work` with a slot for `key` once the key's earlier calls have ended and there is room;
   * `cancelled()` if `signal` aborts while it waits. Synchronous up to the first wait: a call with
   * nothing ahead of it starts at once.
   */
  within<T>(
    key: string,
    signal: AbortSignal | undefined,
    work: (slot: Slot) => Promise<T>,
    cancelled: () => T,
  ): Promise<T> {
    const previous = this.tails.get(key);
    let done = () => {};
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.tails.set(key, mine);
    const go = async (): Promise<T> => {
      let slot: Slot | null = null;
      try {
        if (previous && !(await untilAborted(previous, signal))) return cancelled();
        slot = this.waiters.length === 0 && this.host.hasRoom(key) ? this.host.take(key) : null;
        slot ??= await this.claim(key, signal);
        if (slot === null) return cancelled();
        return await work(slot);
      } finally {
        if (slot !== null) this.host.release(slot);
        // The key's next call goes once every call before it has ended (a call cancelled while
        // waiting does not let the next one past a call still running).
        if (previous) void previous.then(done);
        else done();
        void mine.then(() => {
          if (this.tails.get(key) === mine) this.tails.delete(key);
        });
        this.wake();
      }
    };
    return go();
  }

  /** Hands slots to waiting calls, in order, while there is room; call it when room may have freed. */
  wake(): void {
    while (this.waiters.length > 0) {
      const next = this.waiters[0] as Waiter<Slot>;
      if (!this.host.hasRoom(next.key)) return;
      this.waiters.shift();
      next.give(this.host.take(next.key));
    }
  }

  /** How many calls wait for room. */
  get waiting(): number {
    return this.waiters.length;
  }

  private claim(key: string, signal?: AbortSignal): Promise<Slot | null> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve(null);
      const waiter: Waiter<Slot> = {
        key,
        give: (slot) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(slot);
        },
      };
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        resolve(null);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }
}

/** Resolves true once `work` settles, or false as soon as `signal` aborts. */
function untilAborted(work: Promise<unknown>, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => resolve(false);
    signal?.addEventListener('abort', onAbort, { once: true });
    void work.then(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    });
  });
}
