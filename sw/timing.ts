/**
 * Every bound the service worker puts on the engine worker, in one table. They are module constants
 * rather than options because a service worker has no configuration channel before its first fetch.
 */
export interface SwTiming {
  /** A live engine port answers `ping` in well under a millisecond; this only has to beat a busy worker. */
  pingMs: number;
  /**
   * A link that answered within this long is used without a ping first: the ping is a round trip
   * on every request's path (about a millisecond, the largest part of a request's time in the
   * service worker), and the call then checks the link at once, beside the request. Default
   * {@link TRUST_MS}; 0 pings before every request.
   */
  trustMs?: number;
  /** How long a page may take to hand over a port after `need-port` (it creates a MessageChannel). */
  portWaitMs: number;
  /**
   * Bound on `handle` answering with headers. Chromium kills a `respondWith` pending for 5 minutes,
   * so stay below that and answer with our own error first (the core answers early for long work).
   */
  handleMs: number;
  /** While `handle` is pending, how often to check that the worker's tab is still there. */
  heartbeatMs: number;
  /** Ping bound during the heartbeat: generous, since the worker may be busy loading a model. */
  heartbeatPingMs: number;
  /**
   * How long a ping may go unanswered, in all, while the tab that handed the link over is still open
   * (its worker is busy, not dead): past `pingMs` or `heartbeatPingMs` such a link is kept until
   * this. Longer than the tab's own bound on a silent worker (`stuckWorkerMs`, after which it
   * restarts the worker and hands over a new port), so a busy worker is never dropped here first.
   * Default {@link BUSY_MS}.
   */
  busyMs?: number;
  /**
   * How long a non-SSE body (JSON, an error) may take to arrive whole before it is answered at all.
   * Read whole, a body lost with its tab becomes a retryable 503 instead of a 200 whose body errors;
   * one still coming past this (the core's early-headers JSON, DESIGN.md §4) is streamed instead.
   * Default {@link WHOLE_BODY_MS}.
   */
  wholeBodyMs?: number;
}

/** See {@link SwTiming.trustMs}: back-to-back requests (a tool loop, a chat) skip the ping. */
export const TRUST_MS = 2_000;

/** See {@link SwTiming.busyMs}: the page's default `stuckWorkerMs` (15 s) plus time to restart. */
export const BUSY_MS = 20_000;

/** See {@link SwTiming.wholeBodyMs}: well past any answer that is ready when its headers are. */
export const WHOLE_BODY_MS = 10_000;

export const SW_TIMING: SwTiming = {
  pingMs: 2_000,
  portWaitMs: 3_000,
  handleMs: 270_000,
  heartbeatMs: 5_000,
  heartbeatPingMs: 10_000,
  trustMs: TRUST_MS,
  busyMs: BUSY_MS,
  wholeBodyMs: WHOLE_BODY_MS,
};
