/**
 * What starting llama.cpp needs from the browser: wllama's lazily imported module, the weight
 * download (bounded by stalls), the device choice and a fresh `Wllama` for one instance.
 */
import type { WllamaConfig } from '@wllama/wllama/esm/index.js';
import { serviceUnavailable } from '../../../common/api-error';
import { withStallTimeout } from '../../stall-timeout';
import { webGpuHas } from '../../webllm/webllm-webgpu';
import type { LlamaLogger } from '../llama-log';
import { wllamaModelFetcher } from '../model-fetcher';
import type { WasmBuild } from '../wasm-build';
import type { ModelFetcher, WllamaEngineOptions, WllamaLike, WllamaModelSpec } from '../wllama-options';

type WllamaModule = typeof import('@wllama/wllama/esm/index.js');

/**
 * @example
 * const starter = new LlamaStarter(opts, log.logger);
 * const wllama = await starter.createWllama({ logger, allowOffline: true });
 */
export class LlamaStarter {
  private lib: Promise<WllamaModule> | null = null;
  readonly fetcher: ModelFetcher;

  constructor(
    private readonly opts: WllamaEngineOptions,
    logger: LlamaLogger,
  ) {
    this.fetcher = opts.fetchModel ?? wllamaModelFetcher(() => this.module(), logger);
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

  async chooseDevice(spec: WllamaModelSpec): Promise<'cpu' | 'webgpu'> {
    const want = spec.device ?? 'auto';
    if (want === 'cpu') return 'cpu';
    if (want === 'webgpu') return 'webgpu';
    return (await this.webGpuF16()) ? 'webgpu' : 'cpu';
  }

  webGpuF16(): Promise<boolean> {
    return this.opts.hasWebGpuF16?.() ?? webGpuHas(['shader-f16']);
  }

  /** A fresh `Wllama` running `build` (see wasm-build.ts). */
  async createWllama(config: WllamaConfig, build: WasmBuild = 'stock'): Promise<WllamaLike> {
    if (this.opts.createWllama) return this.opts.createWllama(config, build);
    const { Wllama } = await this.module();
    const simd = build === 'simd' ? this.opts.simdWasm : undefined;
    const wasm = simd?.wasmUrl ?? this.opts.wasmUrl;
    if (!wasm) throw serviceUnavailable('The wllama engine has no wasmUrl: it cannot start llama.cpp.');
    const wllama = new Wllama({ default: wasm }, config);
    // wllama's "compat" mode (Safari, Firefox) fetches code from a CDN; intab serves only its own
    // origin, so those browsers run the plain build (single file read into memory, no JSPI).
    wllama.setCompat(null);
    if (simd) {
      // intab's SIMD build is wllama's compat flavour (wasm32 + Asyncify) with its own emscripten
      // glue: wllama's worker runs that glue, in every browser, through the compat path.
      const resources = {
        wasmPath: absoluteUrl(simd.wasmUrl),
        jsPath: absoluteUrl(simd.jsUrl),
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

/** A URL made absolute against the origin (workers resolve relative URLs against their script). */
export function absoluteUrl(url: string): string {
  const base = globalThis.location ? new URL('/', globalThis.location.href).href : 'http://localhost/';
  return new URL(url, base).href;
}
