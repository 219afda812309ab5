/**
 * What starting llama.cpp needs from the browser: wllama's lazily imported module, the weight
 * download (bounded by stalls), the device choice and a fresh `Wllama` for one instance.
 */
import type { WllamaConfig } from '@wllama/wllama/esm/index.js';
import { serviceUnavailable } from '../../../common/api-error';
import { withStallTimeout } from '../../stall-timeout';
import { webGpuHas } from '../../webllm/webllm-webgpu';
import { CACHE_PROBE_MS, type CacheManagerClass, type ModelCache, openModelCache } from '../cache';
import { withTimeout } from '../chunk-queue';
import { checkSimdFiles } from '../limits';
import type { LlamaLogger } from '../llama-log';
import { wllamaModelFetcher } from '../model-fetcher';
import { simdFiles, type WasmBuild } from '../wasm-build';
import type { ModelFetcher, WllamaEngineOptions, WllamaLike, WllamaModelSpec } from '../wllama-options';

type WllamaModule = typeof import('@wllama/wllama/esm/index.js');

/**
 * @example
 * const starter = new LlamaStarter(opts, log.logger);
 * const wllama = await starter.createWllama({ logger, allowOffline: true });
 */
export class LlamaStarter {
  private lib: Promise<WllamaModule> | null = null;
  private cache: Promise<ModelCache> | null = null;
  /** Each SIMD build's checked glue code, once its files passed {@link checkBuild}. */
  private readonly glue = new Map<WasmBuild, string>();
  readonly fetcher: ModelFetcher;

  constructor(
    private readonly opts: WllamaEngineOptions,
    logger: LlamaLogger,
  ) {
    this.fetcher =
      opts.fetchModel ??
      wllamaModelFetcher(
        () => this.module(),
        () => this.modelCache(),
        logger,
      );
  }

  /** The store downloaded weights go to (cache/model-cache.ts), chosen once by what opens. */
  modelCache(): Promise<ModelCache> {
    this.cache ??= this.module().then(
      ({ CacheManager }) => openModelCache(CacheManager as unknown as CacheManagerClass),
      (err: unknown) => {
        this.cache = null;
        throw err;
      },
    );
    return this.cache;
  }

  async download(
    spec: WllamaModelSpec,
    loadMs: number,
    report: (progress: number, text: string) => void,
  ): Promise<Blob[]> {
    const url = absoluteUrl(spec.url as string);
    const abort = new AbortController();
    try {
      return await withStallTimeout((bump) => {
        report(0, `Fetching '${spec.id}'…`);
        return this.fetcher.fetch(url, {
          signal: abort.signal,
          progress: ({ loaded, total }) => {
            bump();
            const mb = (n: number) => (n / 1e6).toFixed(1);
            report(
              total > 0 ? (loaded / total) * 0.9 : 0,
              `Fetching '${spec.id}': ${mb(loaded)} of ${mb(total)} MB`,
            );
          },
        });
      }, loadMs);
    } catch (err) {
      abort.abort();
      throw err;
    }
  }

  /**
   * Drops `url`'s cached shards (a copy that is not a whole GGUF), within the cache's probe bound; a
   * cache that fails or does not answer is left as it is (its copy is then checked again next load).
   */
  async forget(url: string): Promise<void> {
    try {
      await withTimeout(this.fetcher.forget?.(url) ?? Promise.resolve(), CACHE_PROBE_MS, 'The model cache');
    } catch (err) {
      console.warn(`[intab] wllama: could not drop the cached copy of ${url} (${String(err)})`);
    }
  }

  async chooseDevice(spec: WllamaModelSpec): Promise<'cpu' | 'webgpu'> {
    const want = spec.device ?? 'auto';
    if (want === 'cpu') return 'cpu';
    if (want === 'webgpu') return 'webgpu';
    return (await this.webGpuMissing()) === null ? 'webgpu' : 'cpu';
  }

  /**
   * Why llama.cpp's WebGPU backend cannot run in this worker, or null when it can. It lives in
   * wllama's stock build only, which suspends wasm for GPU reads through JSPI (Chromium has it;
   * Firefox and Safari do not), and it needs `shader-f16`.
   */
  async webGpuMissing(): Promise<string | null> {
    if (!(this.opts.hasJspi ?? hasJspi)())
      return 'no JSPI (WebAssembly.Suspending), which its WebGPU build needs';
    if (!(await (this.opts.hasWebGpuF16?.() ?? webGpuHas(['shader-f16']))))
      return 'no WebGPU adapter with shader-f16 in its worker';
    return null;
  }

  /**
   * Checks a SIMD build's files before it starts (limits/wasm-start.ts): a WasmStartError for an
   * HTML page or any answer that is not its glue and its wasm. Nothing to check for the stock build.
   * A build that passed once is not fetched again.
   */
  async checkBuild(build: WasmBuild): Promise<void> {
    const files = simdFiles(
      { simd: this.opts.simdWasm, simdSingleThread: this.opts.simdSingleThreadWasm },
      build,
    );
    if (!files || this.glue.has(build)) return;
    const fetchFile = this.opts.fetchWasm ?? ((url, init) => fetch(url, init));
    const absolute = { wasmUrl: absoluteUrl(files.wasmUrl), jsUrl: absoluteUrl(files.jsUrl) };
    this.glue.set(build, await checkSimdFiles(absolute, fetchFile));
  }

  /** A fresh `Wllama` running `build` (see wasm-build.ts). */
  async createWllama(config: WllamaConfig, build: WasmBuild = 'stock'): Promise<WllamaLike> {
    if (this.opts.createWllama) return this.opts.createWllama(config, build);
    const { Wllama } = await this.module();
    const { simdWasm, simdSingleThreadWasm } = this.opts;
    const simd = simdFiles({ simd: simdWasm, simdSingleThread: simdSingleThreadWasm }, build);
    const wasm = simd?.wasmUrl ?? this.opts.wasmUrl;
    if (!wasm) throw serviceUnavailable('The wllama engine has no wasmUrl: it cannot start llama.cpp.');
    // wllama's constructor makes an OPFS cache of its own unless given one, and throws where there is
    // no OPFS (WebKit): every instance shares the store that opened.
    const wllama = new Wllama(
      { default: wasm },
      { ...config, cacheManager: (await this.modelCache()).manager },
    );
    // wllama's "compat" mode (Safari, Firefox) fetches code from a CDN; intab serves only its own
    // origin, so those browsers run the plain build (single file read into memory, no JSPI).
    wllama.setCompat(null);
    if (simd) {
      // intab's SIMD builds are wllama's compat flavour (wasm32 + Asyncify) with their own emscripten
      // glue: wllama's worker runs that glue, in every browser, through the compat path. The
      // single-threaded one is loaded with n_threads 1, so the worker asks for no pthread pool and
      // no shared memory (`pthreadPoolSize: 0`, `wasmMemory: null`: the glue makes its own).
      // The glue is the code checkBuild fetched and checked, where it did: run as checked.
      const glue = this.glue.get(build);
      const resources = {
        wasmPath: absoluteUrl(simd.wasmUrl),
        jsPath: glue === undefined ? absoluteUrl(simd.jsUrl) : { code: glue },
        compat: true,
      };
      wllama.getWorkerResources = () => resources;
    }
    return wllama;
  }

  private module(): Promise<WllamaModule> {
    // Lazy: wllama's JavaScript is its own chunk, fetched only when a GGUF model is used.
    this.lib ??= import('@wllama/wllama/esm/index.js').catch((err: unknown) => {
      this.lib = null;
      throw err;
    });
    return this.lib;
  }
}

/**
 * Whether this realm has JavaScript Promise Integration (`WebAssembly.Suspending`), which wllama's
 * WebGPU build needs to wait on the GPU from inside wasm.
 *
 * @example
 * hasJspi(); // true in Chromium 137+, false in Firefox ESR and Safari
 */
export function hasJspi(): boolean {
  return typeof (WebAssembly as { Suspending?: unknown }).Suspending === 'function';
}

/** A URL made absolute against the origin (workers resolve relative URLs against their script). */
export function absoluteUrl(url: string): string {
  const base = globalThis.location ? new URL('/', globalThis.location.href).href : 'http://localhost/';
  return new URL(url, base).href;
}
