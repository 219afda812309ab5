/**
 * The one SSE reader of the bench, used on both sides of every comparison (the page reading through the
 * service worker, and the engine worker reading the core's body directly), so parsing costs cancel out.
 * It parses every frame, checks `sequence_number` order, and collects the output text.
 */

/** What one read of an SSE body saw. Times are ms from the caller's `t0` on the same clock. */
export interface SseRead {
  /** When the first complete SSE frame had arrived. */
  firstEventMs: number;
  /** When the body ended. */
  totalMs: number;
  events: number;
  /** `response.output_text.delta` events. */
  deltas: number;
  /** Body chunks as the reader received them. */
  chunks: number;
  bytes: number;
  /** Concatenated output_text deltas. */
  text: string;
  /** Distinct `item_id`s among the deltas (one per message; more would mean mixed streams). */
  itemIds: string[];
  /** Distinct response ids seen in `response.*` lifecycle events. */
  responseIds: string[];
  /** Every `sequence_number` was the previous one plus one, from 0. */
  ordered: boolean;
  lastType: string;
}

/** How {@link readSse} reads. */
export interface ReadOptions {
  /**
   * Read once per task (a MessageChannel round trip between reads), as the transport's pipe into
   * the service worker does. The core coalesces the frames that wait while its reader is busy, so a
   * reader that asks again at once gets one chunk per event (20,008 for a 20k-token stream) while
   * the page, behind the transport, gets a hundred; pacing the in-worker baseline this way makes it
   * read the same chunks the page reads, so the two totals measure the same work.
   */
  paced?: boolean;
}

/** One macrotask: lets everything queued as microtasks (the core producing frames) run first. */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/**
 * Reads an SSE body to its end.
 *
 * @example
 * const t0 = performance.now();
 * const res = await fetch('/v1/responses', init);
 * const read = await readSse(res.body!, t0);
 */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  t0: number,
  opts: ReadOptions = {},
): Promise<SseRead> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const out: SseRead = {
    firstEventMs: -1,
    totalMs: -1,
    events: 0,
    deltas: 0,
    chunks: 0,
    bytes: 0,
    text: '',
    itemIds: [],
    responseIds: [],
    ordered: true,
    lastType: '',
  };
  const itemIds = new Set<string>();
  const responseIds = new Set<string>();
  let buffer = '';
  for (let first = true; ; first = false) {
    if (opts.paced && !first) await nextTask();
    const { done, value } = await reader.read();
    if (done) break;
    out.chunks += 1;
    out.bytes += value.byteLength;
    buffer += decoder.decode(value, { stream: true });
    let start = 0;
    for (let end = buffer.indexOf('\n\n', start); end !== -1; end = buffer.indexOf('\n\n', start)) {
      const frame = buffer.slice(start, end);
      start = end + 2;
      if (out.events === 0) out.firstEventMs = performance.now() - t0;
      const data = frame.indexOf('data: ');
      if (data === -1) continue;
      const event = JSON.parse(frame.slice(data + 6)) as {
        type: string;
        sequence_number?: number;
        delta?: string;
        item_id?: string;
        response?: { id: string };
      };
      if (event.sequence_number !== out.events) out.ordered = false;
      out.events += 1;
      out.lastType = event.type;
      if (event.type === 'response.output_text.delta') {
        out.deltas += 1;
        out.text += event.delta ?? '';
        if (event.item_id) itemIds.add(event.item_id);
      } else if (event.response?.id) {
        responseIds.add(event.response.id);
      }
    }
    buffer = buffer.slice(start);
  }
  out.totalMs = performance.now() - t0;
  out.itemIds = [...itemIds];
  out.responseIds = [...responseIds];
  return out;
}

/** A non-streamed answer: status, size and time to the end of its body. */
export interface JsonRead {
  status: number;
  totalMs: number;
  bytes: number;
  outputText: string;
}

/** Reads a JSON Responses answer to its end and extracts its output text. */
export async function readJson(res: Response, t0: number): Promise<JsonRead> {
  const raw = await res.text();
  const totalMs = performance.now() - t0;
  const json = JSON.parse(raw) as { output?: { content?: { text?: string }[] }[] };
  const outputText = (json.output ?? [])
    .flatMap((item) => item.content ?? [])
    .map((c) => c.text ?? '')
    .join('');
  return { status: res.status, totalMs, bytes: raw.length, outputText };
}
