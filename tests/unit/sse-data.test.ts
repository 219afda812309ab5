/**
 * The one SSE reader (src/common/sse-data.ts) that the remote engine and the core's WebSocket mode
 * share: the same events however the body is cut into chunks, the caps an untrusted body needs, and
 * work linear in each chunk.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { type SseCaps, SseDataParser, sseEventData } from '../../src/common/sse-data';
import { normalizeServer } from '../../src/engine/remote/remote-options';
import { sseData } from '../../src/engine/remote/remote-sse';

/** A body that hands out `chunks` one read each. */
function bodyOf(chunks: string[]): ReadableStream<Uint8Array> {
  const bytes = chunks.map((c) => new TextEncoder().encode(c));
  return new ReadableStream({
    pull(ctl) {
      const next = bytes.shift();
      if (next) ctl.enqueue(next);
      else ctl.close();
    },
  });
}

async function all(events: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const realSlice = String.prototype.slice;
afterEach(() => {
  String.prototype.slice = realSlice;
});

describe('SSE event data', () => {
  it('joins data lines, skips comments and other fields, and reads CRLF lines', () => {
    const parser = new SseDataParser();
    expect(parser.push(': keep-alive\n\nevent: x\ndata: a\r\ndata:b\r\nid: 1\r\n\r\ndata: c\n')).toEqual([
      'a\nb',
    ]);
    expect(parser.end()).toBe('c');
    expect(parser.end()).toBeNull();
  });

  it('gives the same events however the body is cut into chunks (property)', async () => {
    const line = fc.stringMatching(/^[^\r\n]*$/);
    const event = fc.array(line, { minLength: 1, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { maxLength: 6 }),
        fc.constantFrom('\n', '\r\n'),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (events, eol, cuts) => {
          const text = events.map((lines) => lines.map((l) => `data: ${l}${eol}`).join('') + eol).join('');
          const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...at].map((from, i) => text.slice(from, at[i] ?? text.length));
          expect(await all(sseEventData(bodyOf(chunks)))).toEqual(events.map((lines) => lines.join('\n')));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('passes the line cap and the event cap to its error, and only with caps', () => {
    const caps: SseCaps = {
      maxLineChars: 8,
      maxEventChars: 24,
      tooLarge: (what, cap) => new Error(`${what} over ${cap}`),
    };
    expect(() => new SseDataParser(caps).push('data: 123456789')).toThrow('line over 8');
    expect(() => new SseDataParser(caps).push('data: 12345\ndata: 123456\n')).toThrow('event over 24');
    expect(new SseDataParser(caps).push('data: 1234\ndata: 1234\n\n')).toEqual(['1234\n1234']);
    expect(new SseDataParser().push(`data: ${'x'.repeat(100)}\n\n`)).toEqual(['x'.repeat(100)]);
  });

  it('copies each character of a chunk a bounded number of times, however many lines it holds', async () => {
    const body = 'data: {"i":1}\n\n'.repeat(20_000);
    let copied = 0;
    String.prototype.slice = function (this: string, ...args: [number?, number?]) {
      const out = realSlice.apply(this, args);
      copied += out.length;
      return out;
    };
    const server = normalizeServer({ baseURL: 'http://llm.test/v1' }, null);
    const got = await all(sseData(bodyOf([body]), server, 60_000));
    String.prototype.slice = realSlice;
    expect(got).toHaveLength(20_000);
    expect(copied).toBeLessThan(4 * body.length);
  });
});
