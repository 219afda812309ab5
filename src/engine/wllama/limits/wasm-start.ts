/**
 * The start of one llama.cpp wasm build, bounded apart from the model load (issue 43). emscripten
 * 3.1.6's glue (intab's SIMD builds) does not reject anything when its wasm fails to compile: it
 * logs `failed to asynchronously prepare wasm: …`, then calls `abort(reason)` with the CompileError
 * itself, and wllama's handler of that abort calls `.replace` on it, throws, and leaves the load
 * pending until the load bound ends it, 120 s later, with no fallback. An HTML page answered in place
 * of the wasm (an SPA-fallback host, a captive portal) and a browser without wasm SIMD both end so.
 * So a build's files are checked before it starts, its log is watched for the glue's abort, and a
 * build with another after it has a bound of its own to start: each ends that build at once, and the
 * next one is tried.
 */
import { TimeoutError, withTimeout } from '../chunk-queue';
import type { LlamaLog } from '../llama-log';
import type { SimdWasm } from '../wasm-build';

/**
 * How long a build may take to start (the wasm fetched and compiled, its runtime up) before the next
 * build is tried. The SIMD wasm is 13-14 MB: seconds to fetch and compile on a broadband link, and
 * 30 s still leaves room for one of about 0.5 MB/s. The model load after the start has its own bound.
 */
export const WASM_START_MS = 30_000;

/** A build that did not start: the loader tries the next one (unlike a TimeoutError of the load). */
export class WasmStartError extends Error {
  override readonly name = 'WasmStartError';
}

/**
 * What wllama logs once the wasm has started (after `module.init` answered and the model files were
 * opened in it), just before it calls llama.cpp's start; a test pins it to the installed wllama.
 */
export const STARTED_LINE = 'Calling wllamaStart...';

/** What the glue logs when its wasm failed to compile or its runtime aborted before starting. */
const GLUE_FAILED = /failed to asynchronously prepare wasm|^Aborted\(/;

/** Fetches a build's file: `fetch` in the browser; tests answer it. */
export type WasmFetch = (url: string, init: { signal: AbortSignal }) => Promise<Response>;

/**
 * Checks a SIMD build's two files before its worker starts, and returns its glue's code (handed to
 * wllama as it is, so the code run is the code checked, fetched once). The glue must be JavaScript
 * and the wasm must begin with wasm's magic and version: an HTML page answered for either is
 * refused at once, where it would otherwise leave the load hanging. Bounded by `ms`.
 *
 * @example
 * const glue = await checkSimdFiles({ wasmUrl, jsUrl }, fetch); // WasmStartError for an HTML answer
 */
export async function checkSimdFiles(
  files: SimdWasm,
  fetchFile: WasmFetch,
  ms = WASM_START_MS,
): Promise<string> {
  const abort = new AbortController();
  try {
    const [glue] = await withTimeout(
      Promise.all([
        glueCode(files.jsUrl, fetchFile, abort.signal),
        wasmHead(files.wasmUrl, fetchFile, abort.signal),
      ]),
      ms,
      'The build’s files',
    );
    return glue;
  } catch (err) {
    if (err instanceof TimeoutError) throw new WasmStartError(err.message);
    throw err;
  } finally {
    abort.abort();
  }
}

async function glueCode(url: string, fetchFile: WasmFetch, signal: AbortSignal): Promise<string> {
  const res = await answered(url, fetchFile, signal);
  const code = await res.text();
  if (/html/i.test(res.headers.get('content-type') ?? '') || code.trimStart().startsWith('<')) {
    throw new WasmStartError(`${url} is not its JavaScript glue (${answer(res, code.slice(0, 16))})`);
  }
  return code;
}

/** Reads the wasm's first 8 bytes (magic `\0asm`, version 1) and drops the rest of the answer. */
async function wasmHead(url: string, fetchFile: WasmFetch, signal: AbortSignal): Promise<void> {
  const res = await answered(url, fetchFile, signal);
  const reader = res.body?.getReader();
  const head: number[] = [];
  try {
    while (reader && head.length < 8) {
      const { done, value } = await reader.read();
      if (done) break;
      head.push(...value.subarray(0, 8 - head.length));
    }
  } finally {
    void reader?.cancel().catch(() => {});
  }
  const magic = [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0];
  if (head.length < 8 || magic.some((b, i) => head[i] !== b)) {
    const text = String.fromCharCode(...head.filter((b) => b >= 0x20 && b < 0x7f));
    throw new WasmStartError(`${url} is not WebAssembly (${answer(res, text)})`);
  }
}

async function answered(url: string, fetchFile: WasmFetch, signal: AbortSignal): Promise<Response> {
  const res = await fetchFile(url, { signal });
  if (!res.ok) throw new WasmStartError(`${url} answered HTTP ${res.status}`);
  return res;
}

/** How an answer is named in an error: its content type and how it begins. */
function answer(res: Response, begins: string): string {
  const type = res.headers.get('content-type') || 'no content type';
  return begins ? `${type}, it begins "${begins}"` : `${type}, empty`;
}

/**
 * Watches one start through its log: `failed` rejects with a {@link WasmStartError} when the glue
 * logs that its wasm failed to compile or aborted, or when `boundMs` pass (null: no bound, for the
 * last build, which has no next to fall back to) before wllama logs {@link STARTED_LINE}. `stop`
 * ends the watch; `failed` never settles after it.
 *
 * @example
 * const start = watchWasmStart(log, WASM_START_MS);
 * try { await Promise.race([wllama.loadModel(blobs, params), start.failed]); } finally { start.stop(); }
 */
export function watchWasmStart(
  log: LlamaLog,
  boundMs: number | null,
): { failed: Promise<never>; stop: () => void } {
  let fail: (err: WasmStartError) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  // Raced by the caller, maybe after it rejected: never an unhandled rejection of its own.
  failed.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  let unwatch = () => {};
  const stop = () => {
    clearTimeout(timer);
    unwatch();
  };
  unwatch = log.watch((line) => {
    if (line.includes(STARTED_LINE)) stop();
    else if (GLUE_FAILED.test(line)) {
      stop();
      fail(new WasmStartError(`its wasm did not start: ${line}`));
    }
  });
  if (boundMs !== null && boundMs > 0 && Number.isFinite(boundMs)) {
    timer = setTimeout(() => {
      stop();
      fail(new WasmStartError(`its wasm did not start within ${boundMs} ms`));
    }, boundMs);
  }
  return { failed, stop };
}
