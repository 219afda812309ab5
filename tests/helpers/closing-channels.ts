/**
 * Real channels (Node's MessageChannel and BroadcastChannel) for tests of the links between tabs,
 * workers and the service worker, each closed after the test that opened it so that no open port
 * keeps the run alive or carries messages into the next test.
 */
import { afterEach } from 'vitest';
import type { TabChannel } from '../../src/client/leader-relay';
import { LEADER_CHANNEL } from '../../src/worker/protocol';

/**
 * Call at a test file's top level; returns a maker of MessageChannels whose ports close after each test.
 * @example
 * const channel = messageChannels();
 * const { port1, port2 } = channel();
 */
export function messageChannels(): () => MessageChannel {
  const open: MessagePort[] = [];
  afterEach(() => {
    for (const port of open.splice(0)) port.close();
  });
  return () => {
    const ch = new MessageChannel();
    open.push(ch.port1, ch.port2);
    return ch;
  };
}

/**
 * Call at a test file's top level; returns a maker of tabs' ends of the leader channel (every tab
 * has its own object, as in the browser), each closed after each test.
 * @example
 * const tab = leaderTabs();
 * new LeaderCalls(tab());
 */
export function leaderTabs(): () => TabChannel & BroadcastChannel {
  const open: BroadcastChannel[] = [];
  afterEach(() => {
    for (const channel of open.splice(0)) channel.close();
  });
  return () => {
    const channel = new BroadcastChannel(LEADER_CHANNEL) as TabChannel & BroadcastChannel;
    open.push(channel);
    return channel;
  };
}
