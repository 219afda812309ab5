/** Types for scripts/llama-quantize.mjs (see there). */
export declare const QUANT_TYPES: string[];
export declare function quantFile(type: string): string;
export declare function ensureLlamaQuantize(): Promise<{ bin: string; built: boolean }>;
export declare function ensureQuantized(type: string): Promise<{ path: string; built: boolean }>;
