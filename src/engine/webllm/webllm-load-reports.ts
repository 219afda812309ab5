/**
 * What a web-llm load tells its listeners: web-llm's own reports, each with the bytes received over
 * the network so far in this load (`receivedBytes`, from the byte meter), and between two reports a
 * repeat of the last one with the new byte count, at most every {@link BYTES_REPORT_MS}. web-llm
 * reports once per weight shard (tens of MB), so on a slow link its bar would stand still for
 * minutes; the bytes let a page show a download that moves, with a real speed.
 */
import type { InitProgressReport } from '@mlc-ai/web-llm';
import type { LoadProgress } from '../types';

/** How often, at most, bytes alone are reported between two of web-llm's reports. */
export const BYTES_REPORT_MS = 500;

/** Feeds a load's listeners. */
export interface LoadReporter {
  /** web-llm's `initProgressCallback`. */
  report(r: InitProgressReport): void;
  /** The byte meter's listener: `n` more bytes arrived. */
  bytes(n: number): void;
}

/**
 * @example
 * const reporter = loadReporter(listeners);
 * meter.watch((n) => reporter.bytes(n));
 * rt.onReport = (r) => reporter.report(r);
 */
export function loadReporter(
  listeners: Set<(p: LoadProgress) => void>,
  now: () => number = Date.now,
): LoadReporter {
  let received = 0;
  let last: LoadProgress | null = null;
  let sentAt = 0;
  const send = (p: LoadProgress): void => {
    sentAt = now();
    for (const l of listeners) {
      try {
        l(p);
      } catch {
        // A listener's failure is the listener's; the load goes on.
      }
    }
  };
  return {
    report(r) {
      last = { progress: Math.min(1, Math.max(0, r.progress)), text: r.text, receivedBytes: received };
      send(last);
    },
    bytes(n) {
      received += n;
      if (last && now() - sentAt >= BYTES_REPORT_MS) send({ ...last, receivedBytes: received });
    },
  };
}
