/**
 * The model catalog: every web-llm prebuilt and the curated GGUF list, each as one
 * {@link CatalogModel} with the facts a person chooses by (family, size, quantization, context,
 * GPU memory, download size, licence). Plain data and pure functions: the page, the engine worker
 * and apps (`intab/catalog`) all read the same list.
 */
import { GGUF_CATALOG } from './gguf-models';
import {
  buildLabel,
  familyOf,
  mlcQuantization,
  modelName,
  needsShaderF16,
  parameterCount,
} from './model-names';
import { WEBLLM_PREBUILT_FACTS } from './webllm-prebuilts';

/** One downloadable build of one model. */
export interface CatalogModel {
  /** The model id `/v1/models` lists and requests name. */
  id: string;
  /** The engine that runs it: `web-llm` (WebGPU) or `wllama` (llama.cpp on the CPU). */
  engine: 'web-llm' | 'wllama';
  /** The family the picker groups it under (`Qwen2.5`, `Llama 3.2`, …). */
  family: string;
  /** The model, shared by all of its builds (`Llama-3.2-1B-Instruct`). */
  name: string;
  /** This build within the model (`q4f16_1`, `q4f32_1 · 1k context`, `Q4_K_M`). */
  build: string;
  /** Parameter count, or null where neither the id nor the card says. */
  parameters: number | null;
  /** `q4f16_1` (web-llm) or `Q4_K_M` (GGUF). */
  quantization: string;
  /** Context window, in tokens. */
  contextWindow: number;
  /** `chat`, `vision` (chat with images) or `embedding`. */
  kind: 'chat' | 'vision' | 'embedding';
  /** GPU memory web-llm says the model needs (MB), or null (GGUF models run on the CPU). */
  vramRequiredMB: number | null;
  /** web-llm's `low_resource_required`: built to run on a low-memory GPU (phones, iGPUs). */
  lowResourceRequired: boolean | null;
  /** Whether the adapter must have `shader-f16` (web-llm f16 builds). */
  needsShaderF16: boolean;
  /** The download's size in bytes, or null when not known in advance. */
  downloadBytes: number | null;
  /** Where a GGUF downloads from (`…/resolve/main/…`); web-llm knows its own URLs. */
  url?: string;
  /** The licence (GGUF entries). */
  license?: string;
}

function fromWebLlm([
  id,
  vram,
  low,
  features,
  context,
]: (typeof WEBLLM_PREBUILT_FACTS)[number]): CatalogModel {
  const embedding = /embed/i.test(id);
  return {
    id,
    engine: 'web-llm',
    family: familyOf(id),
    name: modelName(id),
    build: buildLabel(id),
    parameters: parameterCount(id),
    quantization: mlcQuantization(id) ?? 'unknown',
    contextWindow: context,
    kind: embedding ? 'embedding' : /vision/i.test(id) ? 'vision' : 'chat',
    vramRequiredMB: vram,
    lowResourceRequired: low,
    needsShaderF16: needsShaderF16(id, features),
    // web-llm's weights are sharded; the records give no total, and the shards' sizes are only known
    // once ndarray-cache.json is fetched.
    downloadBytes: null,
  };
}

function fromGguf(g: (typeof GGUF_CATALOG)[number]): CatalogModel {
  return {
    id: g.id,
    engine: 'wllama',
    family: g.family,
    // The file's name less its quantization (and bartowski's `microsoft_` prefix) is the model's
    // name, so a GGUF joins the web-llm builds of the same model as one more build.
    name: g.id.replace(/[-._](Q\d\w*|q\d\w*)$/, '').replace(/^microsoft_/, ''),
    build: g.quantization,
    parameters: g.parameters,
    quantization: g.quantization,
    contextWindow: g.contextWindow,
    kind: g.kind,
    vramRequiredMB: null,
    lowResourceRequired: null,
    needsShaderF16: false,
    downloadBytes: g.bytes,
    url: g.url,
    license: g.license,
  };
}

/**
 * Every model in the catalog: web-llm's prebuilts in web-llm's order, then the GGUF list.
 *
 * @example
 * MODEL_CATALOG.filter((m) => m.engine === 'wllama').map((m) => m.id);
 */
export const MODEL_CATALOG: readonly CatalogModel[] = [
  ...WEBLLM_PREBUILT_FACTS.map(fromWebLlm),
  ...GGUF_CATALOG.map(fromGguf),
];

const BY_ID = new Map(MODEL_CATALOG.map((m) => [m.id, m]));

/**
 * The catalog's entry for a model id, or undefined for a model it does not know (`scripted`, a
 * file the visitor opened under another name, a self-hosted record).
 *
 * @example
 * catalogEntry('Qwen3-0.6B-q4f16_1-MLC')?.vramRequiredMB; // 1403.34
 */
export function catalogEntry(id: string): CatalogModel | undefined {
  return BY_ID.get(id);
}

/**
 * The catalog fields `/v1/models` adds to a model object (intab's own extension fields, next to
 * `engine`, `cached` and `device`), in the API's snake_case; unknown facts are left out, not null.
 *
 * @example
 * catalogWireFields(catalogEntry('Llama-3.2-1B-Instruct-q4f16_1-MLC')!);
 * // { family: 'Llama 3.2', parameters: 1e9, quantization: 'q4f16_1', context_window: 4096,
 * //   vram_required_MB: 879.04, low_resource_required: true, requires_shader_f16: true }
 */
export function catalogWireFields(m: CatalogModel): Record<string, string | number | boolean> {
  const fields: Record<string, string | number | boolean | null | undefined> = {
    family: m.family,
    parameters: m.parameters,
    quantization: m.quantization,
    context_window: m.contextWindow,
    vram_required_MB: m.vramRequiredMB,
    low_resource_required: m.lowResourceRequired,
    requires_shader_f16: m.needsShaderF16,
    download_bytes: m.downloadBytes,
    url: m.url,
    license: m.license,
  };
  return Object.fromEntries(
    Object.entries(fields).filter((e): e is [string, string | number | boolean] => e[1] != null),
  );
}
