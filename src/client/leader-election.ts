/**
 * Leader election with Web Locks (DESIGN §5): every tab asks for one exclusive lock and the holder
 * runs the engine. The browser releases a lock when its document goes away (closed, reloaded,
 * crashed), and grants it to the next tab in the queue, so failover needs no heartbeat of our own.
 */
import { LEADER_LOCK } from '../worker/protocol';
import { RUN_LOCK_PREFIX } from '../worker/run-locks';

/** This tab's place in the election. */
export interface LeaderElection {
  /** Whether this tab leads now. Once true it stays true for the document's lifetime. */
  readonly isLeader: boolean;
  /** Whether it leads by holding the lock (false where Web Locks are missing: every tab leads). */
  readonly exclusive: boolean;
  /**
   * Resolves when this tab has become the leader and `onElected` has finished (possibly never,
   * while another tab leads); rejects if `onElected` failed.
   */
  readonly elected: Promise<void>;
}

/**
 * Queues for the leader lock and runs `onElected` once it is granted. The lock is held until the
 * document dies: its callback returns a promise that never settles.
 *
 * Without Web Locks (very old browsers), every tab leads its own engine, which is the behaviour
 * before leader election: correct, just wasteful with GPU memory.
 *
 * @example
 * const election = electLeader(navigator.locks, () => startEngineWorker());
 * if (election.isLeader) console.log('this tab runs the engine');
 */
export function electLeader(
  locks: LockManager | undefined,
  onElected: () => Promise<void> | void,
): LeaderElection {
  let isLeader = false;
  let exclusive = false;
  let settle: (won: Promise<void>) => void = () => {};
  const elected = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const win = (): void => {
    if (isLeader) return;
    isLeader = true;
    settle(Promise.resolve().then(onElected));
  };
  if (locks) {
    void locks
      .request(LEADER_LOCK, () => {
        exclusive = true;
        win();
        return new Promise<never>(() => {});
      })
      .catch((err: unknown) => {
        // A request only fails when the document is being torn down, or where locks are denied
        // (e.g. an opaque origin); leading alone is then the only way this tab can serve.
        console.warn('[intab] leader lock unavailable, this tab leads its own engine:', err);
        win();
      });
  } else {
    queueMicrotask(win);
  }
  return {
    get isLeader() {
      return isLeader;
    },
    get exclusive() {
      return exclusive;
    },
    elected,
  };
}

/**
 * Resolves once no `intab:run:*` lock is held any more, or after `ms`. A new leader calls this before
 * starting its engine worker: the dead leader's worker may release its run locks a moment after its
 * document released the leader lock, and start-up recovery must not mistake those runs for live ones
 * (they would stay `in_progress` forever).
 *
 * @example
 * await runLocksReleased(navigator.locks, 2_000);
 */
export async function runLocksReleased(locks: LockManager | undefined, ms: number): Promise<void> {
  if (!locks) return;
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const snapshot = await locks.query();
    if (!(snapshot.held ?? []).some((l) => l.name?.startsWith(RUN_LOCK_PREFIX))) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}
