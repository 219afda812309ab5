/** Types for scripts/build-wasm.mjs (see there). */
export interface WasmSource {
  package: string;
  version: string;
  integrity: string;
  use: string;
}
/** One of the script's builds: the threaded SIMD one or the single-threaded one (issue 42). */
export interface WasmBuildSpec {
  name: 'simd' | 'simd-st';
  outDir: string;
  workDir: string;
  about: string;
  cmakeFlags: string[];
  patches: string[];
  glueFixes: { find: string; replace: string }[];
  pthreads: boolean;
}
/** The folder of every build's outputs (issue 47): wasm/, one subfolder per build. */
export declare const WASM_DIR: string;
export declare const OUT_DIR: string;
export declare const ST_OUT_DIR: string;
export declare const PATCHES: string[];
export declare const ST_PATCHES: string[];
export declare const PENDING_PATCHES: string[];
export declare function patchDigests(patches?: string[]): { file: string; sha256: string }[];
export declare function stripNameSection(wasm: Uint8Array): Buffer;
export declare const SOURCES: WasmSource[];
export declare const EMCC_VERSION: string;
export declare const CMAKE_FLAGS: string[];
export declare const ST_CMAKE_FLAGS: string[];
export declare const OUTPUTS: string[];
export declare const BUILDS: WasmBuildSpec[];
export declare function sha256(bytes: Uint8Array | string): string;
export declare function inputsDigest(build?: WasmBuildSpec): string;
export declare function syncTree(from: string, to: string): number;
export declare const GLUE_FIXES: { find: string; replace: string }[];
export declare const ST_GLUE_FIXES: { find: string; replace: string }[];
export declare function fixGlue(
  js: string,
  workerJs?: string,
  glueFixes?: { find: string; replace: string }[],
): string;
export declare function assertNoSharedMemory(js: string): string;
export declare const PTHREAD_WORKER_FIND: string;
