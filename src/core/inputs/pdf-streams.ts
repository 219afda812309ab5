/**
 * A PDF's compressed streams, measured before pdf.js reads them (issue 38 §3.1). pdf.js inflates a
 * stream synchronously on the thread that calls it, the engine worker every tab shares: a 1 MB flate
 * bomb that inflates to 1 GiB held that thread for seconds and its memory for as long. So every
 * stream is first inflated here with the platform's streaming `DecompressionStream`, a chunk at a
 * time (the loop turns between chunks), counting the bytes that come out and giving up past
 * {@link PDF_STREAM_BUDGETS}. Nothing inflated is kept.
 *
 * Found by the `stream` keyword in the raw bytes, as pdf.js's own repair scan finds them, whatever
 * the xref table or the stream's `/Filter` say; data that inflates to more zlib data (a filter chain
 * of flate after flate) is measured through every layer. Filters that amplify and that this scan
 * does not measure (LZW, RunLength, and the ASCII encodings that can hide a flate layer) are refused.
 */
import { invalidRequest } from '../../common/api-error';
import { pace } from '../../common/pace';

/** The most one PDF's compressed streams may inflate to, in one place. */
export const PDF_STREAM_BUDGETS = {
  /** Bytes one stream may inflate to (every layer of a chain counted). */
  maxStreamBytes: 32 * 1024 * 1024,
  /** Bytes all the PDF's streams may inflate to together, and compressed bytes read to measure them. */
  maxTotalBytes: 256 * 1024 * 1024,
  /** Streams that start with a zlib header; a PDF of 500 pages has a few thousand. */
  maxStreams: 20_000,
  /** Layers of flate in one chain (`[/FlateDecode /FlateDecode …]`). */
  maxLayers: 4,
} as const;

/** Filters refused: they amplify and are not measured here (names as written, abbreviations included). */
const UNMEASURED = new Set([
  'LZWDecode',
  'LZW',
  'RunLengthDecode',
  'RL',
  'ASCIIHexDecode',
  'AHx',
  'ASCII85Decode',
  'A85',
]);
/**
 * A `/Filter` entry and its value (a name, an array, or a reference), comments allowed between, as
 * pdf.js's lexer reads them. Only after the key: a bare name in binary stream data is no filter.
 */
const FILTER_ENTRY = /\/Filter(?:\s|%[^\r\n]*)*(\[[^\]]*\]|\/[^\s/[\]<>()%{}]+|\d+\s+\d+\s+R)/g;
const NAME = /\/([^\s/[\]<>()%{}]+)/g;
const REFERENCE = /\d+\s+\d+\s+R(?![^\s/[\]<>()%{}])/;
/** Bytes fed to an inflate at a time. */
const FEED = 64 * 1024;

/**
 * Resolves once every compressed stream of `bytes` is measured within {@link PDF_STREAM_BUDGETS};
 * else a 400 (`file_too_large` past a size, `unsupported_file` for a filter intab does not measure).
 *
 * @example
 * await checkPdfStreams(bytes, "'report.pdf'", 'input[0].content[1].file_data');
 */
export async function checkPdfStreams(bytes: Uint8Array, name: string, param: string | null): Promise<void> {
  const { raw, names } = await readText(bytes);
  const filter = unmeasuredFilter(names);
  if (filter !== null) {
    throw invalidRequest(
      param,
      `${name} uses a stream filter intab does not read (${filter}): only FlateDecode streams are measured before reading. Send its text instead.`,
      'unsupported_file',
    );
  }
  const total = new Budget(PDF_STREAM_BUDGETS.maxTotalBytes, () =>
    tooLarge(
      param,
      `${name}'s compressed streams inflate to more than ${mib(PDF_STREAM_BUDGETS.maxTotalBytes)} together`,
    ),
  );
  let streams = 0;
  for (let at = raw.indexOf('stream'); at >= 0; at = raw.indexOf('stream', at + 6)) {
    if (raw.startsWith('end', at - 3)) continue;
    const start = dataStart(raw, at + 6);
    if (start < 0 || !isZlibHeader(bytes[start], bytes[start + 1])) continue;
    if (++streams > PDF_STREAM_BUDGETS.maxStreams) {
      throw tooLarge(param, `${name} has more than ${PDF_STREAM_BUDGETS.maxStreams} compressed streams`);
    }
    // First the bytes up to the next `endstream` (the stream's data when its zlib data ends there,
    // as in any honest PDF); if the inflate did not end cleanly, the data may hold that keyword, and
    // pdf.js (trusting `/Length`) would read past it: measure again with the rest of the file.
    const end = dataEnd(raw, start);
    const ending = { clean: false };
    await drain(layers(fed(bytes, start, end, total), [streamBudget(name, param), total], 1, ending));
    if (!ending.clean && end < bytes.byteLength) {
      await drain(layers(fed(bytes, start, bytes.byteLength, total), [streamBudget(name, param), total], 1));
    }
  }
}

function streamBudget(name: string, param: string | null): Budget {
  return new Budget(PDF_STREAM_BUDGETS.maxStreamBytes, () =>
    tooLarge(
      param,
      `A compressed stream of ${name} inflates to more than ${mib(PDF_STREAM_BUDGETS.maxStreamBytes)}`,
    ),
  );
}

/** Where the next `endstream` starts, less the end of line before it; the file's end if none. */
function dataEnd(raw: string, start: number): number {
  const at = raw.indexOf('endstream', start);
  if (at < 0) return raw.length;
  let end = at;
  if (end > start && raw.charCodeAt(end - 1) === 0x0a) end--;
  if (end > start && raw.charCodeAt(end - 1) === 0x0d) end--;
  return end;
}

/** Characters decoded between two chances for the loop to turn. */
const SLICE = 256 * 1024;

/**
 * The file as text, one UTF-16 unit per byte (windows-1252, so string offsets are byte offsets),
 * and the same with PDF names' `#xx` escapes decoded (for reading `/Filter`s). A slice at a time:
 * decoding 16 MiB at once held the loop for most of a second in Node.
 */
async function readText(bytes: Uint8Array): Promise<{ raw: string; names: string }> {
  const decoder = new TextDecoder('latin1');
  const parts: string[] = [];
  for (let at = 0; at < bytes.byteLength; at += SLICE) {
    parts.push(decoder.decode(bytes.subarray(at, at + SLICE)));
    await pace();
  }
  const raw = parts.join('');
  const named: string[] = [];
  for (let at = 0; at < raw.length; ) {
    let end = Math.min(raw.length, at + SLICE);
    // Never cut an escape: `#4` here and `C` in the next slice would decode as neither.
    if (end < raw.length) end -= raw[end - 1] === '#' ? 1 : raw[end - 2] === '#' ? 2 : 0;
    named.push(
      raw
        .slice(at, end)
        .replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    );
    at = end;
    await pace();
  }
  return { raw, names: named.join('') };
}

/** The first `/Filter` value this scan cannot measure (a refused filter, or one given by reference), or null. */
function unmeasuredFilter(names: string): string | null {
  for (const [, value = ''] of names.matchAll(FILTER_ENTRY)) {
    if (REFERENCE.test(value)) return 'by reference';
    for (const [, filter = ''] of value.matchAll(NAME)) if (UNMEASURED.has(filter)) return filter;
  }
  return null;
}

/** Where a stream's data starts: after the end of the `stream` keyword's line, as pdf.js skips it. */
function dataStart(raw: string, from: number): number {
  const lf = raw.indexOf('\n', from);
  const cr = raw.indexOf('\r', from);
  if (cr >= 0 && (lf < 0 || cr < lf)) return raw.charCodeAt(cr + 1) === 0x0a ? cr + 2 : cr + 1;
  return lf < 0 ? -1 : lf + 1;
}

/** A zlib header (deflate, window ≤ 32 KiB, check bits right): what pdf.js's FlateStream accepts. */
function isZlibHeader(cmf: number | undefined, flg: number | undefined): boolean {
  if (cmf === undefined || flg === undefined) return false;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0;
}

/** Counts bytes against a cap; past it, throws the error it was made with. */
class Budget {
  private used = 0;
  constructor(
    private readonly cap: number,
    private readonly over: () => Error,
  ) {}
  add(n: number): void {
    this.used += n;
    if (this.used > this.cap) throw this.over();
  }
}

/** The file's bytes from `start` to `end`, a slice at a time, each counted against `total`. */
async function* fed(
  bytes: Uint8Array,
  start: number,
  end: number,
  total: Budget,
): AsyncGenerator<Uint8Array> {
  for (let at = start; at < end; at += FEED) {
    const slice = bytes.subarray(at, Math.min(end, at + FEED));
    total.add(slice.byteLength);
    yield slice;
  }
}

/**
 * `input` inflated, counted against `budgets`; output that is itself zlib data is inflated again
 * (a chain of flate filters), up to {@link PDF_STREAM_BUDGETS.maxLayers} layers.
 */
async function* layers(
  input: AsyncIterable<Uint8Array>,
  budgets: Budget[],
  depth: number,
  ending?: { clean: boolean },
): AsyncGenerator<Uint8Array> {
  const out = counted(inflate(input, ending), budgets);
  const first = await out.next();
  if (first.done) return;
  const head = first.value;
  async function* whole(): AsyncGenerator<Uint8Array> {
    yield head;
    yield* out;
  }
  if (head.byteLength >= 2 && isZlibHeader(head[0], head[1]) && depth < PDF_STREAM_BUDGETS.maxLayers) {
    yield* layers(whole(), budgets, depth + 1);
  } else {
    yield* whole();
  }
}

async function* counted(chunks: AsyncIterable<Uint8Array>, budgets: Budget[]): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    for (const budget of budgets) budget.add(chunk.byteLength);
    yield chunk;
  }
}

/**
 * `input` through one `DecompressionStream('deflate')`. It ends where the zlib data ends (the bytes
 * after it, or corrupt data, error the stream: pdf.js stops there too); stopping early (a budget
 * thrown by the consumer) cancels the stream and stops feeding it. `ending.clean` says whether the
 * zlib data ended within the input.
 */
async function* inflate(
  input: AsyncIterable<Uint8Array>,
  ending?: { clean: boolean },
): AsyncGenerator<Uint8Array> {
  const stream = new DecompressionStream('deflate');
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  let stopped = false;
  // An error of the input itself (a budget of the layer that feeds this one) is this layer's error too.
  let inputError: unknown;
  const feeding = (async () => {
    const it = input[Symbol.asyncIterator]();
    try {
      while (!stopped) {
        let next: IteratorResult<Uint8Array>;
        try {
          next = await it.next();
        } catch (err) {
          inputError = err;
          await writer.abort(err).catch(() => {});
          return;
        }
        if (next.done) break;
        await writer.write(next.value as Uint8Array<ArrayBuffer>);
      }
      await writer.close();
    } catch {
      // The stream ended or errored first: what came out is all there is.
    } finally {
      await it.return?.(undefined)?.catch(() => {});
    }
  })();
  try {
    while (true) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
        if (next.done && ending) ending.clean = true;
      } catch {
        next = { done: true, value: undefined };
      }
      if (next.done) {
        stopped = true;
        await writer.abort().catch(() => {});
        await feeding;
        if (inputError !== undefined) throw inputError;
        return;
      }
      yield next.value;
    }
  } finally {
    stopped = true;
    await reader.cancel().catch(() => {});
    await writer.abort().catch(() => {});
    await feeding;
  }
}

async function drain(chunks: AsyncIterable<Uint8Array>): Promise<void> {
  for await (const _ of chunks) {
    // Counting is done as the chunks pass: nothing is kept.
  }
}

function tooLarge(param: string | null, what: string): Error {
  return invalidRequest(
    param,
    `${what}, the most intab reads from one PDF (a compression bomb?). Send its text instead.`,
    'file_too_large',
  );
}

function mib(bytes: number): string {
  return `${bytes / (1024 * 1024)} MiB`;
}
