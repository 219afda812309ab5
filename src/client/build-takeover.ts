/**
 * A tab of a new build does not follow a leader of an older one (issue 43). After a deploy, the
 * leader may still run the previous build's engine worker, which imports its lazy chunks (the
 * Conversations API, …) by names the new deploy no longer has, and serves whatever the old code
 * does. So a tab asks who leads as it starts (and hears every new leader), and when the leader
 * runs another build and loaded before this tab (an older deploy: a tab always loads the newest
 * build there is), it takes the lead over: the origin keeps one engine (DESIGN §5), the newest.
 * The old leader stops its engine, as a closed leader's does (what it was running ends `failed`),
 * and follows.
 *
 * A leader of an intab from before this says no build: it is followed, as before.
 */
import { isMessage, type TabBuild, type TabMessage } from '../worker/protocol';
import type { TabChannel } from './leader-relay';

/**
 * Whether a tab of `own` build takes the lead from a leader that announced `leader`: another
 * build, in a tab loaded earlier. Never both ways: of two tabs, only the later one takes over.
 *
 * @example
 * supersedes({ build: '/assets/engine-worker-B.js', since: 2 }, { build: '/assets/engine-worker-A.js', since: 1 }); // true
 */
export function supersedes(own: TabBuild, leader: Partial<TabBuild>): boolean {
  if (typeof leader.build !== 'string' || typeof leader.since !== 'number') return false;
  return leader.build !== own.build && own.since > leader.since;
}

/**
 * Asks who leads, and takes the lead over from each leader {@link supersedes} says this tab outdates.
 *
 * @example
 * followNewestBuild(channel, { build: engineWorkerUrl(), since: performance.timeOrigin }, election);
 */
export function followNewestBuild(
  channel: TabChannel,
  own: TabBuild,
  election: { readonly isLeader: boolean; takeOver(): void },
): void {
  channel.addEventListener('message', (event) => {
    const data: unknown = event.data;
    if (!isMessage<Extract<TabMessage, { type: 'leader' }>>(data, 'leader')) return;
    if (!election.isLeader && supersedes(own, data)) election.takeOver();
  });
  channel.postMessage({ type: 'who-leads' });
}
