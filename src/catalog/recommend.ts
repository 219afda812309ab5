/**
 * The model to try first on a device: a general chat model that fits comfortably, is quick to
 * download (a first model within {@link FIRST_DOWNLOAD_MAX_BYTES}) and quick here: on a real GPU a
 * WebGPU build, else (no WebGPU, or a software adapter such as SwiftShader, which is no GPU) a
 * small CPU (GGUF) build; null when nothing fits (only `scripted` then). Not the largest that fits:
 * a first answer after a 7 GB download is a first answer nobody waits for.
 */
import type { CatalogModel } from './catalog';
import { type DeviceFacts, deviceFit, formatBytes, memoryNeeded } from './device-fit';

/**
 * Builds a first-time visitor should not be pointed at: specialised or community fine-tunes, base
 * models, vision, short-context and batch variants.
 */
const NOT_FIRST = /Base|Math|Coder|vision|jpn|Hermes|DeepSeek|Wizard|1k context|batch/i;
/**
 * The CPU engine runs a 3.8B model at a word or two a second in wasm; a first model there should
 * answer at reading speed, so the fallback stays at or under 2B parameters.
 */
export const CPU_RECOMMEND_MAX_PARAMETERS = 2e9;
/** A first model downloads at most this much (about a minute or two on a good connection). */
export const FIRST_DOWNLOAD_MAX_BYTES = 2e9;

/**
 * The bytes a build downloads: the catalog's figure, else its parameters at its quantization's bits
 * (web-llm's `q4f16_1` is ~4.5 bits a weight, `q0f32` 32), else its memory need.
 *
 * @example
 * downloadSize(catalogEntry('SmolLM2-1.7B-Instruct-Q4_K_M')!); // 1_055_609_824
 */
export function downloadSize(m: CatalogModel): number | null {
  if (m.downloadBytes !== null) return m.downloadBytes;
  const q = /^q(\d)f(16|32)/.exec(m.quantization);
  if (q && m.parameters) {
    const bits = q[1] === '0' ? Number(q[2]) : Number(q[1]) + 0.5;
    return (m.parameters * bits) / 8;
  }
  return memoryNeeded(m);
}

/** Whether WebGPU here is a real GPU (not absent, not a software adapter). */
function realGpu(facts: DeviceFacts): boolean {
  return facts.webgpu !== null && facts.webgpu.fallback !== true;
}

/**
 * Picks the recommended model among `models` (the catalog, or the part of it this runtime serves).
 * Among the ones that fit (and, on the CPU engine, have at most 2B parameters): first those whose
 * download is within {@link FIRST_DOWNLOAD_MAX_BYTES} (or that are cached); then WebGPU builds on a
 * real GPU, CPU builds on anything else; then the most parameters; then the smaller download.
 *
 * @example
 * recommendModel(MODEL_CATALOG, { webgpu: null, deviceMemoryGB: 4, storageFreeBytes: 10e9 })?.engine; // 'wllama'
 */
export function recommendModel(
  models: readonly CatalogModel[],
  facts: DeviceFacts,
  isCached: (id: string) => boolean = () => false,
): CatalogModel | null {
  const gpu = realGpu(facts);
  const candidates = models.filter(
    (m) =>
      m.kind === 'chat' &&
      !NOT_FIRST.test(`${m.name} ${m.build}`) &&
      (m.engine === 'web-llm' ? gpu : (m.parameters ?? 0) <= CPU_RECOMMEND_MAX_PARAMETERS) &&
      deviceFit(m, facts, isCached(m.id)).level === 'fits',
  );
  const score = (m: CatalogModel): number[] => {
    const download = isCached(m.id) ? 0 : (downloadSize(m) ?? Number.POSITIVE_INFINITY);
    return [
      download <= FIRST_DOWNLOAD_MAX_BYTES ? 1 : 0,
      (m.engine === 'web-llm') === gpu ? 1 : 0,
      // Past the budget, the smallest download is the least bad first one.
      download <= FIRST_DOWNLOAD_MAX_BYTES ? (m.parameters ?? 0) : -download,
      -download,
      // Same size: the build that needs less memory (an f16 one where the GPU has shader-f16).
      -(m.vramRequiredMB ?? 0),
    ];
  };
  let best: CatalogModel | null = null;
  for (const m of candidates) {
    if (!best || compare(score(m), score(best)) > 0) best = m;
  }
  return best;
}

/**
 * Why `model` is the one recommended on this device, in a sentence a visitor reads.
 *
 * @example
 * recommendationReason(smolLm2, { webgpu: null, deviceMemoryGB: 8, storageFreeBytes: null });
 * // 'A CPU (GGUF) build: this browser offers no WebGPU. A 1.0 GB download, …'
 */
export function recommendationReason(model: CatalogModel, facts: DeviceFacts, cached = false): string {
  const where =
    model.engine === 'web-llm'
      ? 'A WebGPU build: this device has a GPU, many times faster than the CPU.'
      : facts.webgpu === null
        ? 'A CPU (GGUF) build: this browser offers no WebGPU.'
        : facts.webgpu.fallback
          ? "A CPU (GGUF) build: this browser's WebGPU adapter is a software one (SwiftShader or llvmpipe), which is no GPU and slower than llama.cpp on the CPU."
          : 'A CPU (GGUF) build: no WebGPU build fits this device.';
  const size = downloadSize(model);
  const download = cached
    ? 'Already downloaded.'
    : size === null
      ? 'Its download size is not known.'
      : `A ${formatBytes(size)} download, small enough for a first model (larger ones take longer to fetch than to try).`;
  return `${where} ${download}`;
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}
