/** Types of scripts/build-test-gguf.mjs, for the TypeScript tests, globalSetup and bench that use it. */
export interface VariantConfig {
  file: string;
  name: string;
  embd: number;
  layers: number;
  heads: number;
  headsKv: number;
  ff: number;
  ctx: number;
  type: 'f16' | 'q8_0';
  seed: number;
  /** `tokenizer.chat_template`; default Meta's Llama 3 template. */
  chatTemplate?: string;
  /** A repository file written as `tokenizer.chat_template.tool_use`. */
  toolUseTemplateFile?: string;
}
export type VariantName = 'tiny' | 'tiny-hermes-converted' | 'bench';
export const MODELS_DIR: string;
export const LLAMA3_CHAT_TEMPLATE: string;
export const VARIANTS: Record<VariantName, VariantConfig>;
export interface Manifest {
  variant: VariantName;
  inputs: string;
  sha256: string;
  bytes: number;
  params: number;
  vocab: number;
  merges: number;
  buildMs: number;
}
export function planVariant(
  variant: VariantName,
  vocabSize?: number,
): { tensors: Array<{ name: string; shape: number[]; type: 'f32' | 'f16' | 'q8_0' }>; params: number };
export function ensureTestModel(
  variant?: VariantName,
  opts?: { dir?: string },
): Promise<{ path: string; built: boolean; manifest: Manifest }>;
