/**
 * Leader election with Web Locks (DESIGN §5): every tab asks for one exclusive lock and the holder
 * runs the engine. The browser releases a lock when its document goes away (closed, reloaded,
 * crashed), and grants it to the next tab in the queue, so failover needs no heartbeat of our own.
 */
import { LEADER_LOCK } from '../worker/protocol';
import { RUN_LOCK_PREFIX } from '../worker/run-locks';

/** This tab's place in the election. */
export interface LeaderElection {
  /**
   * Whether this tab leads now. It leads until its document dies, or until a tab of a newer build
   * takes the lead over ({@link LeaderElection.takeOver}); it then queues to lead again.
   */
  readonly isLeader: boolean;
  /** Whether it leads by holding the lock (false where Web Locks are missing: every tab leads). */
  readonly exclusive: boolean;
  /**
   * Resolves when this tab has first become the leader and `onElected` has finished (possibly
   * never, while another tab leads); rejects if `onElected` failed.
   */
  readonly elected: Promise<void>;
  /**
   * Takes the lock from the tab that holds it (Web Locks' `steal`), which then runs its
   * `onDeposed`: a tab of a newer build does not follow a leader running an older build's engine
   * (issue 43), whose lazy chunks the new deploy no longer has. This tab's place in the queue stays.
   */
  takeOver(): void;
}

/** What a leader does when a tab of a newer build takes the lead over. */
export interface ElectionOptions {
  /** This tab no longer leads: stop its engine and stop serving followers. */
  onDeposed?: () => void;
}

/**
 * Queues for the leader lock and runs `onElected` each time it is granted. The lock is held until
 * the document dies, or another tab takes it over: its callback returns a promise that never settles.
 *
 * Without Web Locks (very old browsers), every tab leads its own engine, which is the behaviour
 * before leader election: correct, just wasteful with GPU memory.
 *
 * @example
 * const election = electLeader(navigator.locks, () => startEngineWorker(), { onDeposed: () => engine.end() });
 * if (election.isLeader) console.log('this tab runs the engine');
 */
export function electLeader(
  locks: LockManager | undefined,
  onElected: () => Promise<void> | void,
  opts: ElectionOptions = {},
): LeaderElection {
  let isLeader = false;
  let exclusive = false;
  /** A request of this tab waits in the lock's queue (a steal does not take its place). */
  let queued = false;
  let stealing = false;
  let first = true;
  let settle: (won: Promise<void>) => void = () => {};
  const elected = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const win = (): void => {
    if (isLeader) return;
    isLeader = true;
    const run = Promise.resolve().then(onElected);
    if (first) settle(run);
    else run.catch((err: unknown) => console.error('[intab] could not start the engine:', err));
    first = false;
  };
  const deposed = (): void => {
    isLeader = false;
    exclusive = false;
    try {
      opts.onDeposed?.();
    } finally {
      if (!queued) ask(false);
    }
  };
  const ask = (steal: boolean): void => {
    if (!locks) return;
    let held = false;
    if (steal) stealing = true;
    else queued = true;
    const granted = (): Promise<never> => {
      if (steal) stealing = false;
      else queued = false;
      held = true;
      exclusive = true;
      win();
      return new Promise<never>(() => {});
    };
    const request = steal
      ? locks.request(LEADER_LOCK, { steal: true }, granted)
      : locks.request(LEADER_LOCK, granted);
    void request.catch((err: unknown) => {
      // A held lock's request fails when another tab steals it: that tab leads now.
      if (held) return deposed();
      if (steal) stealing = false;
      else queued = false;
      // A request only fails when the document is being torn down, or where locks are denied
      // (e.g. an opaque origin); leading alone is then the only way this tab can serve.
      console.warn('[intab] leader lock unavailable, this tab leads its own engine:', err);
      win();
    });
  };
  if (locks) ask(false);
  else queueMicrotask(win);
  return {
    get isLeader() {
      return isLeader;
    },
    get exclusive() {
      return exclusive;
    },
    elected,
    takeOver() {
      if (!isLeader && !stealing) ask(true);
    },
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
