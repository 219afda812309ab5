/**
 * One compressed stream of a PDF measured as pdf.js would inflate it (issue 43 item 7). pdf.js
 * inflates a FlateDecode stream with `DecompressionStream` where that succeeds on the bytes its
 * `/Length` gives, else with its own lenient decoder, and reads some streams with its own decoder
 * only (a content stream read synchronously). Which one runs, and on how many bytes, this scan
 * cannot know (a `/Length` may be a reference, or wrong and repaired), so every stream goes through
 * both, each measured on the most bytes pdf.js could give it: what either would output is counted.
 * Output that is itself zlib data (a filter chain) is inflated again, both ways, up to
 * {@link StreamMeasure.maxLayers} layers.
 */
import { pace } from '../../common/pace';
import { nativeInflate } from './native-inflate';
import { PdfJsInflater } from './pdf-flate';

/** Something bytes are counted against. */
export interface Counter {
  add(n: number): void;
}

/** Counts against a cap; past it, throws the error it was made with. */
export class Budget implements Counter {
  private used = 0;
  constructor(
    private readonly cap: number,
    private readonly over: () => Error,
  ) {}
  add(n: number): void {
    this.used += n;
    if (this.used > this.cap) throw this.over();
  }
  /** What has been counted so far. */
  get count(): number {
    return this.used;
  }
  /** A budget that starts from this one's count and counts apart from here on: one branch of a chain. */
  fork(): Budget {
    const branch = new Budget(this.cap, this.over);
    branch.used = this.used;
    return branch;
  }
}

/** The budgets one PDF's streams are measured against. */
export interface StreamMeasure {
  /** A fresh budget for one stream: every layer of one way of inflating it. */
  stream(): Budget;
  /** Every byte read or inflated, all streams and ways together. */
  total: Budget;
  /** Huffman-table entries pdf.js's decoder would fill, all streams together. */
  tables: Budget;
  /** The error for inflated bytes this scan cannot reproduce that would be inflated again. */
  inexact(): Error;
  /** Layers of flate one chain may have. */
  maxLayers: number;
}

/** Bytes read from the file at a time. */
const FEED = 64 * 1024;

/**
 * A zlib header as pdf.js's FlateStream checks it: method 8, check bits right, no preset
 * dictionary. Any window size (CINFO): pdf.js ignores it, as zlib does not.
 *
 * @example
 * acceptsFlateHeader(0x88, 0x1c) // → true (CINFO 8, which zlib refuses)
 */
export function acceptsFlateHeader(cmf: number | undefined, flg: number | undefined): boolean {
  if (cmf === undefined || flg === undefined) return false;
  return (cmf & 0x0f) === 8 && ((cmf << 8) + flg) % 31 === 0 && (flg & 0x20) === 0;
}

/**
 * Measures the stream of `bytes` whose data starts at `start` (its zlib header); `end` is where the
 * next `endstream` starts, where an honest stream's data ends. Throws the budget's error past one.
 *
 * @example
 * await measureStream(bytes, start, end, measure);
 */
export async function measureStream(
  bytes: Uint8Array,
  start: number,
  end: number,
  m: StreamMeasure,
): Promise<void> {
  // The native inflater on the bytes to `endstream`; if zlib's data does not end there cleanly, on
  // all the rest (the data may hold that keyword, and pdf.js trusts /Length): what it outputs
  // before it errors is what it outputs on the bytes a /Length gives.
  const ending = { clean: false };
  let native = m.stream();
  let viaNative = await drain(nativeInflate(fed(bytes, start, end, m.total), ending), native, m.total, 1, m);
  if (!ending.clean && end < bytes.byteLength) {
    native = m.stream();
    viaNative = await drain(
      nativeInflate(fed(bytes, start, bytes.byteLength, m.total)),
      native,
      m.total,
      1,
      m,
    );
  }
  // pdf.js's decoder, fed to `endstream`, then on to the file's end while it has not ended: it never
  // outputs less for more input, so this is the most it makes whatever /Length says.
  const own = m.stream();
  const inflater = new PdfJsInflater((entries) => m.tables.add(entries));
  const input = concat(fed(bytes, start, end, m.total), fed(bytes, end, bytes.byteLength, m.total));
  const viaOwn = await drain(pdfJsInflate(inflater, input), own, beyond(m.total, native.count), 1, m);
  await innerLayers(viaNative, native, viaOwn, inflater.exact, own, 2, m);
}

/** The next layer of a chain, inflated from each way's output that is zlib data. */
async function innerLayers(
  viaNative: Uint8Array[] | null,
  native: Budget,
  viaOwn: Uint8Array[] | null,
  exact: boolean,
  own: Budget,
  depth: number,
  m: StreamMeasure,
): Promise<void> {
  if (viaOwn && !exact) throw m.inexact();
  // An honest chain inflates to the same bytes both ways: its next layer is measured once.
  const same = viaNative !== null && viaOwn !== null && (await equal(viaNative, viaOwn));
  if (viaNative) await measureLayer(viaNative, native, depth, m);
  if (viaOwn && !same) await measureLayer(viaOwn, own, depth, m);
}

/** A layer whose input is the previous layer's output (its extent exact), both ways. */
async function measureLayer(
  input: Uint8Array[],
  chain: Budget,
  depth: number,
  m: StreamMeasure,
): Promise<void> {
  const native = chain.fork();
  const viaNative = await drain(nativeInflate(replay(input)), native, m.total, depth, m);
  const own = chain.fork();
  const inflater = new PdfJsInflater((entries) => m.tables.add(entries));
  const viaOwn = await drain(
    pdfJsInflate(inflater, replay(input)),
    own,
    beyond(m.total, native.count - chain.count),
    depth,
    m,
  );
  await innerLayers(viaNative, native, viaOwn, inflater.exact, own, depth + 1, m);
}

/**
 * Counts `chunks` against `stream` and `total`, a slice at a time; returns them (copies) when they
 * are zlib data pdf.js may inflate again (another layer left), else keeps none and returns null.
 */
async function drain(
  chunks: AsyncIterable<Uint8Array>,
  stream: Counter,
  total: Counter,
  depth: number,
  m: StreamMeasure,
): Promise<Uint8Array[] | null> {
  let kept: Uint8Array[] | null = depth < m.maxLayers ? [] : null;
  let head: number[] = [];
  for await (const chunk of chunks) {
    stream.add(chunk.byteLength);
    total.add(chunk.byteLength);
    if (head.length < 2) head = [...head, ...chunk.subarray(0, 2 - head.length)];
    if (kept && head.length === 2 && !acceptsFlateHeader(head[0], head[1])) kept = null;
    kept?.push(chunk.slice());
    await pace();
  }
  return kept && head.length === 2 ? kept : null;
}

/** `input` through {@link PdfJsInflater}, a slice at a time, the loop free to turn between slices. */
async function* pdfJsInflate(
  inflater: PdfJsInflater,
  input: AsyncIterable<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of input) {
    inflater.feed(chunk);
    while (!inflater.done && !inflater.starved) yield inflater.run();
    if (inflater.done) return;
    inflater.starved = false;
  }
  inflater.end();
  while (!inflater.done) yield inflater.run();
}

/** A counter that passes on to `to` only what comes past the first `free` bytes. */
function beyond(to: Counter, free: number): Counter {
  let seen = 0;
  return {
    add(n: number): void {
      const over = Math.max(0, seen + n - Math.max(free, seen));
      seen += n;
      if (over > 0) to.add(over);
    },
  };
}

/** The file's bytes from `start` to `end`, a slice at a time, each counted against `total`. */
async function* fed(
  bytes: Uint8Array,
  start: number,
  end: number,
  total: Counter,
): AsyncGenerator<Uint8Array> {
  for (let at = start; at < end; at += FEED) {
    const slice = bytes.subarray(at, Math.min(end, at + FEED));
    total.add(slice.byteLength);
    yield slice;
  }
}

async function* concat<T>(...parts: AsyncIterable<T>[]): AsyncGenerator<T> {
  for (const part of parts) yield* part;
}

async function* replay(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* chunks;
}

/** Whether two chunk lists hold the same bytes; compared a MiB at a time, the loop free to turn between. */
async function equal(a: Uint8Array[], b: Uint8Array[]): Promise<boolean> {
  const length = (chunks: Uint8Array[]) => chunks.reduce((n, chunk) => n + chunk.byteLength, 0);
  if (length(a) !== length(b)) return false;
  let [ia, oa, ib, ob, since] = [0, 0, 0, 0, 0];
  while (ia < a.length && ib < b.length) {
    const x = a[ia] as Uint8Array;
    const y = b[ib] as Uint8Array;
    const n = Math.min(x.byteLength - oa, y.byteLength - ob);
    for (let k = 0; k < n; k++) if (x[oa + k] !== y[ob + k]) return false;
    [oa, ob, since] = [oa + n, ob + n, since + n];
    if (oa === x.byteLength) [ia, oa] = [ia + 1, 0];
    if (ob === y.byteLength) [ib, ob] = [ib + 1, 0];
    if (since >= 1024 * 1024) {
      since = 0;
      await pace();
    }
  }
  return true;
}
