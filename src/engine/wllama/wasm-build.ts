/**
 * Which llama.cpp WebAssembly builds may run a model, in the order the loader tries them (issues 34,
 * 42). intab ships two builds of its own with ggml's wasm SIMD kernels (made by
 * scripts/build-wasm.mjs): several times faster on quantized weights than @wllama/wllama's stock
 * wasm, which is compiled with ggml's generic C kernels.
 * - `simd` (`wasm/simd/`, the folder of build outputs): with pthreads, several threads. Its glue needs
 *   `SharedArrayBuffer`, so only a cross-origin isolated page runs it.
 * - `simd-st` (`wasm/simd-st/`): the same kernels without pthreads, always one thread,
 *   for pages without `SharedArrayBuffer` (WebKit and Safari when not isolated; any browser on a
 *   page without COOP/COEP), where the threaded glue throws a ReferenceError and the stock build,
 *   being Memory64, does not start in WebKit either.
 * - `stock`: wllama's own. Both SIMD builds are wasm32 and CPU only (Debian's emscripten builds
 *   wllama's "compat" flavour: no Memory64, no WebGPU), so the stock build stays for models on WebGPU,
 *   models too big for a 4 GiB wasm32 heap, and as the last try where the others fail to start.
 * The choice is by feature detection (what the engine's worker has), never by user agent.
 */
import { ApiError } from '../../common/api-error';

/** A SIMD build's two files, on the app's own origin. */
export interface SimdWasm {
  /** `wllama.wasm` built with ggml's wasm SIMD kernels. */
  wasmUrl: string;
  /** Its emscripten glue (`wllama.js`), which wllama's worker runs in place of its own. */
  jsUrl: string;
}

/** Which build runs an instance: `simd` (intab's, threaded), `simd-st` (intab's, 1 thread) or `stock`. */
export type WasmBuild = 'simd' | 'simd-st' | 'stock';

/** What decides whether the threaded build can run: both must hold. */
export interface ThreadSupport {
  crossOriginIsolated: boolean;
  /** `typeof SharedArrayBuffer === 'function'` (browsers hide it on pages that are not isolated). */
  sharedArrayBuffer: boolean;
}

/**
 * What this realm (the engine's worker) has, read now.
 *
 * @example
 * threadSupport(); // { crossOriginIsolated: true, sharedArrayBuffer: true } on an isolated page
 */
export function threadSupport(scope: object = globalThis): ThreadSupport {
  const g = scope as { crossOriginIsolated?: unknown; SharedArrayBuffer?: unknown };
  return {
    crossOriginIsolated: g.crossOriginIsolated === true,
    sharedArrayBuffer: typeof g.SharedArrayBuffer === 'function',
  };
}

/**
 * The smallest module that uses wasm SIMD (`i8x16.splat`, `i8x16.popcnt`: the final SIMD proposal,
 * as wasm-feature-detect probes it): a realm whose `WebAssembly.validate` refuses it cannot compile
 * either SIMD build, whose glue would then abort without rejecting anything (limits/wasm-start.ts).
 */
const SIMD_PROBE = Uint8Array.of(
  0,
  97,
  115,
  109,
  1,
  0,
  0,
  0,
  1,
  5,
  1,
  96,
  0,
  1,
  123,
  3,
  2,
  1,
  0,
  10,
  10,
  1,
  8,
  0,
  65,
  0,
  253,
  15,
  253,
  98,
  11,
);

/**
 * Whether this realm compiles wasm SIMD: feature detection, never the user agent.
 *
 * @example
 * hasWasmSimd(); // true in every current browser
 */
export function hasWasmSimd(validate: (bytes: Uint8Array<ArrayBuffer>) => boolean = wasmValidate): boolean {
  try {
    return validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

function wasmValidate(bytes: Uint8Array<ArrayBuffer>): boolean {
  return typeof WebAssembly === 'object' && WebAssembly.validate(bytes);
}

/** The SIMD builds an engine was given (either may be missing: then it is never tried). */
export interface SimdBuilds {
  simd?: SimdWasm;
  simdSingleThread?: SimdWasm;
}

/**
 * The most weight bytes the wasm32 build takes: its heap is at most 4 GiB, and the weights are copied
 * into it beside the KV cache, compute buffers and the glue's own memory (about 0.5 GiB kept free).
 */
export const WASM32_MAX_MODEL_BYTES = 3.5e9;

/**
 * The builds to try for a model, best first; the list always ends with `stock`. The threaded SIMD
 * build comes first only where the realm is isolated AND has `SharedArrayBuffer` (never without it:
 * its glue would throw before llama.cpp starts); neither SIMD build where the realm has no wasm
 * SIMD (`wasmSimd`: {@link hasWasmSimd}).
 *
 * @example
 * chooseWasmBuilds(builds, { device: 'cpu', modelBytes: 93e6 }, threadSupport()); // ['simd', 'simd-st', 'stock']
 */
export function chooseWasmBuilds(
  builds: SimdBuilds,
  load: { device: 'cpu' | 'webgpu'; modelBytes: number },
  threads: ThreadSupport,
  wasmSimd = true,
): WasmBuild[] {
  if (load.device !== 'cpu' || load.modelBytes > WASM32_MAX_MODEL_BYTES || !wasmSimd) return ['stock'];
  const order: WasmBuild[] = [];
  if (builds.simd && threads.crossOriginIsolated && threads.sharedArrayBuffer) order.push('simd');
  if (builds.simdSingleThread) order.push('simd-st');
  order.push('stock');
  return order;
}

/**
 * The build's files, or undefined for the stock build (wllama's own files).
 *
 * @example
 * simdFiles({ simd }, 'simd'); // simd
 */
export function simdFiles(builds: SimdBuilds, build: WasmBuild): SimdWasm | undefined {
  if (build === 'simd') return builds.simd;
  if (build === 'simd-st') return builds.simdSingleThread;
  return undefined;
}

/**
 * How an error message names a build: its name and how it runs.
 *
 * @example
 * buildLabel('simd-st'); // 'simd-st (1 thread)'
 */
export function buildLabel(build: WasmBuild): string {
  if (build === 'simd') return 'simd (threads)';
  if (build === 'simd-st') return 'simd-st (1 thread)';
  return 'stock';
}

/** One build's failed start: the error and what llama.cpp logged about it. */
export interface BuildFailure {
  build: WasmBuild;
  err: unknown;
  trouble: string;
}

/**
 * The 500 for a model no build could start, naming each build tried and its cause, so a report from
 * a browser says why each one failed (a ReferenceError in one, a BigInt conversion in another).
 *
 * @example
 * allBuildsFailed('tiny', [{ build: 'simd-st', err, trouble: '' }, { build: 'stock', err: err2, trouble: '' }]);
 * // 500 "llama.cpp could not load model 'tiny' with any of its wasm builds: simd-st (1 thread): …; stock: …"
 */
export function allBuildsFailed(modelId: string, failures: readonly BuildFailure[]): ApiError {
  const causes = failures.map(({ build, err, trouble }) => {
    const said = trouble ? ` (llama.cpp said: ${trouble})` : '';
    return `${buildLabel(build)}: ${errorText(err)}${said}`;
  });
  return new ApiError(
    500,
    'server_error',
    'model_load_failed',
    null,
    `llama.cpp could not load model '${modelId}' with any of its wasm builds: ${causes.join('; ')}`,
  );
}

/** An error as `Name: message` (the name tells a ReferenceError from a TypeError; plain `Error` adds nothing). */
function errorText(err: unknown): string {
  if (err instanceof Error) {
    const message = err.message || 'no message';
    const named = err.name && err.name !== 'Error' && !message.startsWith(err.name);
    return named ? `${err.name}: ${message}` : message;
  }
  const message = (err as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return message || 'no message';
  return err === undefined ? 'no message' : String(err);
}
