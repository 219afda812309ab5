/**
 * The MessagePort pipe that carries a response body where streams cannot be transferred (Safari up to
 * 26.5, issue 42) has backpressure: the engine's stream is read only as fast as the service worker's
 * reader asks, so a page that stops reading stops the pulls (and the core's idle bound then ends the
 * run), instead of the whole generation being buffered in a port.
 */
import { describe, expect, it } from 'vitest';
import { deserializeResponse, serializeResponse } from '../../../src/worker/wire';

/** A body of numbered chunks made only when pulled; `pulled()` counts them. */
function countingBody(total: number) {
  let made = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (made === total) return controller.close();
        made++;
        controller.enqueue(new TextEncoder().encode(`chunk ${made}\n`));
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => made };
}

/** Lets every pending message and timer of the pipe run. */
const settle = async (rounds = 50) => {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setTimeout(r, 0));
};

describe('the MessagePort pipe', () => {
  it('pulls from the engine only what the reader asked for, plus at most a small window', async () => {
    const source = countingBody(1_000);
    const res = deserializeResponse(serializeResponse(new Response(source.stream), false));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    for (let i = 0; i < 3; i++) await reader.read();
    await settle();
    expect(source.pulled()).toBeGreaterThanOrEqual(3);
    expect(source.pulled()).toBeLessThanOrEqual(6);
    await reader.cancel('done');
  });

  it('carries every chunk in order to the end when the reader reads them all', async () => {
    const source = countingBody(200);
    const res = deserializeResponse(serializeResponse(new Response(source.stream), false));
    const lines = (await res.text()).trim().split('\n');
    expect(lines).toEqual(Array.from({ length: 200 }, (_, i) => `chunk ${i + 1}`));
  });
});
