/**
 * Which llama.cpp WebAssembly build runs a model (issue 34). intab ships its own build with ggml's
 * wasm SIMD kernels (`src/engine/wllama/simd/`, made by scripts/build-wasm.mjs): several times faster
 * on quantized weights than @wllama/wllama's stock wasm, which is compiled with ggml's generic C
 * kernels. The SIMD build is wasm32 and CPU only (Debian's emscripten builds wllama's "compat"
 * flavour: no Memory64, no WebGPU), so the stock build stays for:
 * - models on WebGPU;
 * - models too big for a 4 GiB wasm32 heap (weights + KV cache + compute buffers);
 * - a browser where the SIMD build fails to start (the loader retries once with the stock build).
 */

/** The SIMD build's two files, on the app's own origin. */
export interface SimdWasm {
  /** `wllama.wasm` built with ggml's wasm SIMD kernels. */
  wasmUrl: string;
  /** Its emscripten glue (`wllama.js`), which wllama's worker runs in place of its own. */
  jsUrl: string;
}

/** Which build runs an instance: `simd` (intab's) or `stock` (@wllama/wllama's own). */
export type WasmBuild = 'simd' | 'stock';

/**
 * The most weight bytes the wasm32 build takes: its heap is at most 4 GiB, and the weights are copied
 * into it beside the KV cache, compute buffers and the glue's own memory (about 0.5 GiB kept free).
 */
export const WASM32_MAX_MODEL_BYTES = 3.5e9;

/**
 * @example
 * chooseWasmBuild(simd, { device: 'cpu', modelBytes: 93e6 }); // 'simd'
 */
export function chooseWasmBuild(
  simd: SimdWasm | undefined,
  load: { device: 'cpu' | 'webgpu'; modelBytes: number },
): WasmBuild {
  if (!simd) return 'stock';
  if (load.device !== 'cpu') return 'stock';
  return load.modelBytes > WASM32_MAX_MODEL_BYTES ? 'stock' : 'simd';
}
