/**
 * Bounds for promises that may never settle. comlink calls over a dead MessagePort neither resolve
 * nor reject (comlink issues #428/#601; Chromium fires no `close` when the peer is stopped), so every
 * cross-context call in intab goes through {@link withDeadline}.
 */

/** Thrown when a deadline passes; `code` lets callers map it to the right OpenAI error. */
export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what} did not answer within ${ms} ms`);
  }
}

/**
 * Races `promise` against a timer. If the deadline wins, `onLate` receives the value should it
 * still arrive, so the caller can release it (e.g. cancel a stream nobody will read).
 *
 * @example
 * const pong = await withDeadline(api.ping(), 1500, 'ping');
 */
export function withDeadline<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
  onLate?: (value: T) => void,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let late = false;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      late = true;
      reject(new DeadlineError(what, ms));
    }, ms);
  });
  promise.then(
    (value) => {
      if (late) onLate?.(value);
    },
    () => {},
  );
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
