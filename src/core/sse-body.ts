import type { StreamEvent } from './response-run';
import { encodeSseEvent } from './sse';

/**
 * An SSE body over an async iterable of events. When the reader cancels (the page aborted its
 * fetch), the iterator is closed and `onCancel` runs; what that means (stop generating, or just
 * detach) is the caller's decision.
 *
 * @example
 * new Response(sseBody(live.follow(-1), () => {}), { headers: SSE_HEADERS });
 */
export function sseBody(
  events: AsyncIterable<StreamEvent>,
  onCancel: () => void = () => {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const it = events[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await it.next();
      if (done) controller.close();
      else controller.enqueue(encoder.encode(encodeSseEvent(value)));
    },
    async cancel() {
      onCancel();
      await it.return?.();
    },
  });
}
