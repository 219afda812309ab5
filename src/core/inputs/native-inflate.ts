/**
 * The platform's inflater, as pdf.js calls it first (`DecompressionStream('deflate')`), fed and read
 * a chunk at a time so that nothing inflated is kept (issue 38 §3.1).
 */

/**
 * `input` through one `DecompressionStream('deflate')`. It ends where the zlib data ends (the bytes
 * after it, or corrupt data, error the stream: pdf.js stops there too); stopping early (a budget
 * thrown by the consumer) cancels the stream and stops feeding it. `ending.clean` says whether the
 * zlib data ended within the input.
 */
export async function* nativeInflate(
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
