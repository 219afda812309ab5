/**
 * What `npm run bench:browsers` runs inside the page: one streamed create through the public API
 * (`POST /v1/responses`, `stream: true`), timed in the page itself, so that the driver's round trips
 * (WebDriver's are tens of ms) never fall inside the timed span. Each function crosses to the
 * browser as its source text (tests/browsers/drivers/types.ts): self-contained, its waits bounded.
 *
 * @example
 * const run = await tab.evaluate(timedStream, { body: { model: 'bench', input: 'Hi' }, ms: 120_000 });
 */
import type { Json } from '../tests/browsers/drivers/types';

/** One streamed generation as the page saw it; times in ms from the request. */
export interface TimedRun {
  status: number;
  /** The first and the last `response.output_text.delta`; -1 when none came. */
  firstMs: number;
  lastMs: number;
  deltas: number;
  /** `usage.output_tokens` of the terminal event; -1 when it had none. */
  outputTokens: number;
  inputTokens: number;
  /** The terminal event's type (`response.completed`, `response.incomplete`, `response.failed`…). */
  ending: string;
  /** A failed run's error, or the body of a non-200 answer. */
  error: string;
  text: string;
}

/**
 * `POST /v1/responses` with `stream: true`, read as it arrives: each delta is stamped with
 * `performance.now()` when the page's reader gets it. Bounded by `ms` (the whole body included).
 */
export async function timedStream(arg: { body: Json; ms: number }): Promise<TimedRun> {
  const out: TimedRun = {
    status: 0,
    firstMs: -1,
    lastMs: -1,
    deltas: 0,
    outputTokens: -1,
    inputTokens: -1,
    ending: '',
    error: '',
    text: '',
  };
  const t0 = performance.now();
  const signal = AbortSignal.timeout(arg.ms);
  try {
    const res = await fetch('/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...(arg.body as object), stream: true }),
      signal,
    });
    out.status = res.status;
    if (res.status !== 200 || !res.body) {
      out.error = (await res.text()).slice(0, 500);
      return out;
    }
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const now = performance.now() - t0;
      buffer += decoder.decode(value, { stream: true });
      const frames = buffer.split(/\r?\n\r?\n/);
      buffer = frames.pop() ?? '';
      for (const frame of frames) {
        const data = frame
          .split(/\r?\n/)
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).replace(/^ /, ''))
          .join('\n');
        if (!data) continue;
        const event = JSON.parse(data);
        if (event.type === 'response.output_text.delta') {
          if (out.firstMs < 0) out.firstMs = now;
          out.lastMs = now;
          out.deltas += 1;
          out.text += event.delta;
        } else if (/^response\.(completed|incomplete|failed)$|^error$/.test(event.type)) {
          out.ending = event.type;
          const usage = event.response?.usage;
          if (usage) {
            out.outputTokens = usage.output_tokens;
            out.inputTokens = usage.input_tokens;
          }
          const error = event.response?.error ?? (event.type === 'error' ? event : null);
          if (error) out.error = JSON.stringify(error).slice(0, 500);
        }
      }
    }
  } catch (err) {
    out.error = `POST /v1/responses (stream): not ended within ${arg.ms} ms or failed (${err})`;
  }
  return out;
}
