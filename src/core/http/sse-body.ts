import { pace } from '../../common/pace';
import { encodeSseFrame, type SseFrame } from './sse';

/**
 * Most SSE text buffered ahead of the reader, in UTF-16 code units. The events are read on while the
 * reader is busy, up to this much; the next read takes all of it as one chunk.
 */
export const SSE_COALESCE_LIMIT = 64 * 1024;

/** How an {@link sseBody} treats a reader that stops reading. */
export interface SseBodyOptions {
  /**
   * A body whose reader has taken nothing for this long while frames wait counts as abandoned, and
   * `onCancel` runs as if it had cancelled. Chromium gives a worker's transferred stream no cancel
   * when the service worker reading it is stopped mid-stream (the page's read errors, and nothing
   * else happens), so without this the model would generate the whole answer for nobody. Any read
   * restarts the clock; unset or 0: never.
   */
  idleMs?: number;
}

/**
 * An SSE body over an async iterable of frames: OpenAI events, data-only frames (Chat Completions'
 * chunks) and comments, which SSE parsers skip. When the
 * reader cancels (the page aborted its fetch), the iterator is closed and `onCancel` runs; what that
 * means (stop generating, or just detach) is the caller's decision. A reader that goes silent for
 * `idleMs` gets `onCancel` too, but the body stays readable: a reader that comes back reads on, up to
 * the end its producer gives the stream.
 *
 * Frames are coalesced by backpressure: a reader that keeps up gets every event as its own chunk the
 * moment it exists, and events that arrive while the reader is busy wait, encoded, and go out
 * together on its next read (at most about {@link SSE_COALESCE_LIMIT} of them). Every chunk costs a
 * message on its way worker → service worker → page, so a fast producer must not pay that per token.
 *
 * @example
 * new Response(sseBody(live.follow(-1), () => {}), { headers: SSE_HEADERS });
 */
export function sseBody(
  events: AsyncIterable<SseFrame | readonly SseFrame[]>,
  onCancel: () => void = () => {},
  opts: SseBodyOptions = {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const it = events[Symbol.asyncIterator]();
  let frames: string[] = [];
  let size = 0;
  let ended = false;
  let failure: { error: unknown } | null = null;
  let cancelled = false;
  let pumping = false;
  /** The read waiting for a frame, and the pump waiting for room. */
  let dataWaiter: (() => void) | null = null;
  let roomWaiter: (() => void) | null = null;
  const wakeData = (): void => {
    dataWaiter?.();
    dataWaiter = null;
  };
  const idle = idleWatch(opts.idleMs ?? 0, () => frames.length > 0 && !dataWaiter && !cancelled, onCancel);

  /** Hands what is encoded to the reader (or starts the idle clock), then waits until it is read. */
  const waitForRoom = async (): Promise<void> => {
    if (dataWaiter) wakeData();
    else idle.waiting();
    await new Promise<void>((r) => {
      roomWaiter = r;
    });
  };

  const pump = async (): Promise<void> => {
    try {
      while (!cancelled) {
        if (size >= SSE_COALESCE_LIMIT) {
          await waitForRoom();
          continue;
        }
        const { done, value } = await it.next();
        if (done || cancelled) break;
        // A batch (see EventQueue.batches) wakes the reader once, after its last frame; a batch
        // past the limit (a lagging reader's whole backlog) goes out a limit's worth at a time, the
        // rest left unencoded until there is room (issue 38: held once, not as frames and bytes too).
        for (const event of isBatch(value) ? value : [value]) {
          if (size >= SSE_COALESCE_LIMIT) await waitForRoom();
          // The first and last events carry the whole response (a 1 MB request's echo, each).
          await pace();
          if (cancelled) break;
          const frame = encodeSseFrame(event);
          frames.push(frame);
          size += frame.length;
        }
        if (cancelled) break;
        if (dataWaiter) wakeData();
        else idle.waiting();
      }
    } catch (error) {
      failure = { error };
    }
    ended = true;
    wakeData();
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        idle.read();
        if (!pumping) {
          pumping = true;
          void pump();
        }
        while (frames.length === 0 && !ended) {
          await new Promise<void>((r) => {
            dataWaiter = r;
          });
        }
        if (cancelled) return;
        if (frames.length > 0) {
          const text = frames.length === 1 ? (frames[0] as string) : frames.join('');
          frames = [];
          size = 0;
          roomWaiter?.();
          roomWaiter = null;
          controller.enqueue(encoder.encode(text));
          // An error waits for the next read: erroring now would discard the frames just enqueued.
          if (ended && !failure) controller.close();
        } else if (failure) {
          controller.error(failure.error);
        } else {
          controller.close();
        }
      },
      async cancel() {
        cancelled = true;
        idle.stop();
        roomWaiter?.();
        roomWaiter = null;
        onCancel();
        await it.return?.();
      },
    },
    // No read-ahead by the stream itself: `pull` runs only for an actual read, so whatever arrived
    // in between goes out as one chunk instead of being split by a speculative pull.
    { highWaterMark: 0 },
  );
}

function isBatch(value: SseFrame | readonly SseFrame[]): value is readonly SseFrame[] {
  return Array.isArray(value);
}

/**
 * The clock behind {@link SseBodyOptions.idleMs}: at most one timer at a time, armed when a frame
 * waits with no read pending, so a reader that keeps up costs no timer at all.
 */
function idleWatch(ms: number, stalled: () => boolean, onIdle: () => void) {
  let lastRead = Date.now();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let fired = false;
  const check = (): void => {
    timer = null;
    if (fired || !stalled()) return;
    const quiet = Date.now() - lastRead;
    if (quiet < ms) {
      timer = setTimeout(check, ms - quiet);
      return;
    }
    fired = true;
    onIdle();
  };
  return {
    /** A read came in (or is waiting). */
    read(): void {
      lastRead = Date.now();
    },
    /** A frame is waiting for a read. */
    waiting(): void {
      if (ms > 0 && !timer && !fired) timer = setTimeout(check, ms);
    },
    stop(): void {
      if (timer) clearTimeout(timer);
      timer = null;
      fired = true;
    },
  };
}
