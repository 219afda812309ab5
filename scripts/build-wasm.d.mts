/** Types for scripts/build-wasm.mjs (see there). */
export interface WasmSource {
  package: string;
  version: string;
  integrity: string;
  use: string;
}
export declare const OUT_DIR: string;
export declare const PATCHES: string[];
export declare function patchDigests(): { file: string; sha256: string }[];
export declare function stripNameSection(wasm: Uint8Array): Buffer;
export declare const SOURCES: WasmSource[];
export declare const EMCC_VERSION: string;
export declare const CMAKE_FLAGS: string[];
export declare const OUTPUTS: string[];
export declare function sha256(bytes: Uint8Array | string): string;
export declare function inputsDigest(): string;
export declare function syncTree(from: string, to: string): number;
export declare const GLUE_FIXES: { find: string; replace: string }[];
export declare function fixGlue(js: string, workerJs?: string): string;
export declare const PTHREAD_WORKER_FIND: string;
