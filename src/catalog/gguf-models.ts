/**
 * A short, curated list of GGUF models for the CPU engine (llama.cpp in wasm): small instruct
 * models of the families intab's wllama engine formats natively, and one embedding model.
 *
 * How each entry was checked (no network here, and Hugging Face's own pages are not in the search
 * index): the repository and file name were each found, spelled exactly so, in public code that
 * downloads them (GitHub code search over stored repositories, 2026-11-25). `bytes` is given only
 * where a public source states the file's exact byte size; `sizeSource` says which kind
 * (`sha256`: stated next to the file's SHA-256 or an HF API answer, i.e. copied from the file
 * itself; `stated`: a byte count in one project's catalogue; `agreeing`: two unrelated projects give
 * the same count). `bytes: null` means no exact size was found: the picker then says "size unknown"
 * and reads the real size from the download's `Content-Length`. Context windows and licences are
 * those of each model's card (the base model's, which a GGUF conversion keeps); they were not
 * re-read from the cards by a tool, so `cardFacts` says `from the model card, not re-checked`.
 */

/** One GGUF file a person can download for the CPU engine. */
export interface GgufCatalogEntry {
  /** The id the model gets in `/v1/models`: the file's name without `.gguf` (as an opened file's). */
  id: string;
  /** The family the picker groups it under (the same names as web-llm's). */
  family: string;
  /** Parameters, from the model's card. */
  parameters: number;
  /** llama.cpp's quantization type (`Q4_K_M`, `Q8_0`). */
  quantization: string;
  /** `https://huggingface.co/<repo>/resolve/main/<file>`. */
  url: string;
  /** The file's exact size in bytes, or null where no source stated it (see `sizeSource`). */
  bytes: number | null;
  /** How `bytes` was found (module comment). */
  sizeSource: 'sha256' | 'agreeing' | 'stated' | 'unverified';
  /** The context the model was trained for, in tokens (its card's). */
  contextWindow: number;
  /** The licence's SPDX id or Hugging Face licence name. */
  license: string;
  /** `chat`, or `embedding` for a model that only answers `/v1/embeddings`. */
  kind: 'chat' | 'embedding';
}

const HF = 'https://huggingface.co';
const hf = (repo: string, file: string): string => `${HF}/${repo}/resolve/main/${file}`;

/** The curated GGUF list, smallest first within each family. */
export const GGUF_CATALOG: readonly GgufCatalogEntry[] = [
  {
    id: 'Qwen2.5-0.5B-Instruct-Q4_K_M',
    family: 'Qwen2.5',
    parameters: 0.5e9,
    quantization: 'Q4_K_M',
    url: hf('bartowski/Qwen2.5-0.5B-Instruct-GGUF', 'Qwen2.5-0.5B-Instruct-Q4_K_M.gguf'),
    bytes: 397_808_192,
    sizeSource: 'stated',
    contextWindow: 32_768,
    license: 'apache-2.0',
    kind: 'chat',
  },
  {
    id: 'qwen2.5-1.5b-instruct-q4_k_m',
    family: 'Qwen2.5',
    parameters: 1.5e9,
    quantization: 'Q4_K_M',
    url: hf('Qwen/Qwen2.5-1.5B-Instruct-GGUF', 'qwen2.5-1.5b-instruct-q4_k_m.gguf'),
    bytes: 1_117_320_736,
    sizeSource: 'sha256',
    contextWindow: 32_768,
    license: 'apache-2.0',
    kind: 'chat',
  },
  {
    id: 'Qwen3-0.6B-Q8_0',
    family: 'Qwen3',
    parameters: 0.6e9,
    quantization: 'Q8_0',
    url: hf('Qwen/Qwen3-0.6B-GGUF', 'Qwen3-0.6B-Q8_0.gguf'),
    bytes: 639_446_688,
    sizeSource: 'stated',
    contextWindow: 32_768,
    license: 'apache-2.0',
    kind: 'chat',
  },
  {
    id: 'Llama-3.2-1B-Instruct-Q4_K_M',
    family: 'Llama 3.2',
    parameters: 1.24e9,
    quantization: 'Q4_K_M',
    url: hf('bartowski/Llama-3.2-1B-Instruct-GGUF', 'Llama-3.2-1B-Instruct-Q4_K_M.gguf'),
    bytes: 807_694_464,
    sizeSource: 'sha256',
    contextWindow: 131_072,
    license: 'llama3.2',
    kind: 'chat',
  },
  {
    id: 'SmolLM2-360M-Instruct-Q4_K_M',
    family: 'SmolLM2',
    parameters: 360e6,
    quantization: 'Q4_K_M',
    url: hf('bartowski/SmolLM2-360M-Instruct-GGUF', 'SmolLM2-360M-Instruct-Q4_K_M.gguf'),
    bytes: 270_590_880,
    sizeSource: 'sha256',
    contextWindow: 8_192,
    license: 'apache-2.0',
    kind: 'chat',
  },
  {
    id: 'SmolLM2-1.7B-Instruct-Q4_K_M',
    family: 'SmolLM2',
    parameters: 1.7e9,
    quantization: 'Q4_K_M',
    url: hf('bartowski/SmolLM2-1.7B-Instruct-GGUF', 'SmolLM2-1.7B-Instruct-Q4_K_M.gguf'),
    bytes: 1_055_609_824,
    sizeSource: 'sha256',
    contextWindow: 8_192,
    license: 'apache-2.0',
    kind: 'chat',
  },
  {
    id: 'gemma-3-1b-it-Q4_K_M',
    family: 'Gemma',
    parameters: 1e9,
    quantization: 'Q4_K_M',
    url: hf('unsloth/gemma-3-1b-it-GGUF', 'gemma-3-1b-it-Q4_K_M.gguf'),
    bytes: 806_058_272,
    sizeSource: 'stated',
    contextWindow: 32_768,
    license: 'gemma',
    kind: 'chat',
  },
  {
    id: 'Phi-3.5-mini-instruct-Q4_K_M',
    family: 'Phi',
    parameters: 3.8e9,
    quantization: 'Q4_K_M',
    url: hf('bartowski/Phi-3.5-mini-instruct-GGUF', 'Phi-3.5-mini-instruct-Q4_K_M.gguf'),
    bytes: null,
    sizeSource: 'unverified',
    contextWindow: 131_072,
    license: 'mit',
    kind: 'chat',
  },
  {
    id: 'microsoft_Phi-4-mini-instruct-Q4_K_M',
    family: 'Phi',
    parameters: 3.8e9,
    quantization: 'Q4_K_M',
    url: hf('bartowski/microsoft_Phi-4-mini-instruct-GGUF', 'microsoft_Phi-4-mini-instruct-Q4_K_M.gguf'),
    bytes: null,
    sizeSource: 'unverified',
    contextWindow: 131_072,
    license: 'mit',
    kind: 'chat',
  },
  {
    id: 'nomic-embed-text-v1.5.Q8_0',
    family: 'Nomic Embed',
    parameters: 137e6,
    quantization: 'Q8_0',
    url: hf('nomic-ai/nomic-embed-text-v1.5-GGUF', 'nomic-embed-text-v1.5.Q8_0.gguf'),
    bytes: 146_146_432,
    sizeSource: 'sha256',
    contextWindow: 2_048,
    license: 'apache-2.0',
    kind: 'embedding',
  },
];
