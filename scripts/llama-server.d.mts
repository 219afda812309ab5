/** Types for scripts/llama-server.mjs (see there). */
export declare const SOURCE_PACKAGE: string;
export declare const SOURCE_VERSION: string;
export declare const SOURCE_INTEGRITY: string;
export declare const HERMES_TOOL_TEMPLATE: string;
export declare const CACHE_DIR: string;
export declare const CMAKE_FLAGS: string[];

/** The built server: its binary, the llama.cpp source it came from, the Hermes tool template in it. */
export interface LlamaServerBuild {
  bin: string;
  srcDir: string;
  template: string;
  dir: string;
  built: boolean;
  buildMs: number;
}

export declare function ensureLlamaServer(): Promise<LlamaServerBuild>;
export declare function cachedBuilds(): string[];
