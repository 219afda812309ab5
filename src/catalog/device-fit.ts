/**
 * What fits this device: a pure judgement of one catalog model against the facts a browser gives
 * (the WebGPU adapter's `shader-f16` and buffer limits, `navigator.deviceMemory`, the storage quota
 * left), as fits / may not fit / cannot run here, with the reason in words. The page gathers the
 * facts (src/demo/device-facts.ts); apps can call this with their own.
 *
 * "Cannot run" is kept for what is certain (no WebGPU, a missing feature, a limit below web-llm's
 * floor, a known download larger than the space left); what is only likely (the device's memory,
 * which browsers round and cap) is "may not fit".
 */
import type { CatalogModel } from './catalog';

/** What the browser says about this device; null where it does not say. */
export interface DeviceFacts {
  /** The WebGPU adapter, or null without WebGPU. */
  webgpu: {
    shaderF16: boolean;
    /** `adapter.limits.maxBufferSize`, bytes. */
    maxBufferSize: number;
    /** `adapter.limits.maxStorageBufferBindingSize`, bytes. */
    maxStorageBufferBindingSize: number;
    /**
     * A software adapter (`adapter.info.isFallbackAdapter`, or SwiftShader / llvmpipe by its vendor,
     * architecture or description): WebGPU that runs on the CPU, many times slower than a GPU and
     * slower than llama.cpp's own wasm. Not a GPU, whatever it can allocate. Absent: a GPU.
     */
    fallback?: boolean;
  } | null;
  /** `navigator.deviceMemory` (GB; Chromium rounds it down and caps it at 8), or null (Firefox, Safari). */
  deviceMemoryGB: number | null;
  /** `quota - usage` from `navigator.storage.estimate()`, bytes, or null. */
  storageFreeBytes: number | null;
}

/** The verdict for one model on one device. */
export interface Fit {
  level: 'fits' | 'may-not-fit' | 'cannot-run';
  /** One sentence saying why, in words a visitor reads. */
  reason: string;
}

const MB = 1 << 20;
const GB = 1 << 30;

/** web-llm's runtime floor: it falls back to 256 MB buffers and 128 MB bindings, and fails below. */
export const WEBLLM_MIN_BUFFER_BYTES = 256 * MB;
export const WEBLLM_MIN_BINDING_BYTES = 128 * MB;
/** Below a 1 GB binding, web-llm warns that only its low-resource builds are made to run. */
export const WEBLLM_FULL_BINDING_BYTES = GB;
/**
 * Share of the device's memory a model may take and still "fit": the rest is the browser, the OS
 * and the page. Above it, "may not fit".
 */
export const COMFORTABLE_MEMORY_SHARE = 0.6;
/** Without `deviceMemory`, models up to this much memory are called fitting (a common 8 GB laptop's share). */
export const UNKNOWN_MEMORY_COMFORT_MB = 4096;
/** llama.cpp in wasm32 addresses at most 4 GiB; the weights plus a context must fit in it. */
export const WASM_MEMORY_BYTES = 4 * GB;
/** The CPU engine's working memory besides the weights (KV cache, buffers), as a share of the file. */
const GGUF_OVERHEAD = 1.25;
/** Bits per weight of the GGUF quantizations in the catalog, for a file whose size is not known. */
const GGUF_BITS: Record<string, number> = { Q4_K_M: 4.9, Q8_0: 8.5, Q4_0: 4.5, F16: 16 };

/**
 * How big a number of bytes is, for a person.
 *
 * @example
 * formatBytes(807_694_464); // '770 MB'
 * formatBytes(1_117_320_736); // '1.0 GB'
 */
export function formatBytes(bytes: number): string {
  if (bytes >= GB) return `${(bytes / GB).toFixed(1)} GB`;
  return `${Math.max(1, Math.round(bytes / MB))} MB`;
}

/**
 * The memory a model takes once loaded, in bytes: web-llm's `vram_required_MB`, or for a GGUF its
 * file (or, unknown, its parameters at the quantization's bits) plus the CPU engine's overhead.
 *
 * @example
 * memoryNeeded(catalogEntry('Qwen3-0.6B-q4f16_1-MLC')!); // 1403.34 MB in bytes
 */
export function memoryNeeded(m: CatalogModel): number | null {
  if (m.vramRequiredMB !== null) return m.vramRequiredMB * MB;
  const file = m.downloadBytes ?? estimatedFileBytes(m);
  return file === null ? null : file * GGUF_OVERHEAD;
}

function estimatedFileBytes(m: CatalogModel): number | null {
  const bits = GGUF_BITS[m.quantization];
  return bits && m.parameters ? (m.parameters * bits) / 8 : null;
}

/**
 * Judges whether `model` runs on the device the `facts` describe. `cached` models need no download,
 * so the storage left does not count for them.
 *
 * @example
 * deviceFit(catalogEntry('Qwen3-0.6B-q4f16_1-MLC')!, { webgpu: null, deviceMemoryGB: 8, storageFreeBytes: null });
 * // { level: 'cannot-run', reason: 'Needs WebGPU, which this browser does not offer: pick a CPU (GGUF) model.' }
 */
export function deviceFit(model: CatalogModel, facts: DeviceFacts, cached = false): Fit {
  const hard = model.engine === 'web-llm' ? webGpuBlocker(model, facts) : wasmBlocker(model);
  if (hard) return { level: 'cannot-run', reason: hard };
  const download = cached ? null : storageBlocker(model, facts);
  if (download) return download;
  if (model.engine === 'web-llm' && facts.webgpu?.fallback)
    return { level: 'may-not-fit', reason: SOFTWARE_ADAPTER_REASON };
  if (model.engine === 'web-llm' && facts.webgpu) {
    const binding = facts.webgpu.maxStorageBufferBindingSize;
    if (binding < WEBLLM_FULL_BINDING_BYTES && model.lowResourceRequired !== true)
      return {
        level: 'may-not-fit',
        reason: `This GPU binds at most ${formatBytes(binding)} per buffer; web-llm makes only its low-resource builds for that.`,
      };
  }
  return memoryFit(model, facts);
}

/** What the picker says of a web-llm build on a software adapter. */
export const SOFTWARE_ADAPTER_REASON =
  "This browser's WebGPU adapter is a software one (it runs on the CPU, not a GPU): web-llm would be far slower here than a CPU (GGUF) model.";

function webGpuBlocker(m: CatalogModel, facts: DeviceFacts): string | null {
  const gpu = facts.webgpu;
  if (!gpu) return 'Needs WebGPU, which this browser does not offer: pick a CPU (GGUF) model.';
  if (m.needsShaderF16 && !gpu.shaderF16)
    return "Needs the GPU feature 'shader-f16', which this GPU lacks: pick an f32 build (q4f32).";
  if (gpu.maxBufferSize < WEBLLM_MIN_BUFFER_BYTES)
    return `This GPU allows buffers of ${formatBytes(gpu.maxBufferSize)}, below the 256 MB web-llm needs.`;
  if (gpu.maxStorageBufferBindingSize < WEBLLM_MIN_BINDING_BYTES)
    return `This GPU binds ${formatBytes(gpu.maxStorageBufferBindingSize)} per buffer, below the 128 MB web-llm needs.`;
  return null;
}

function wasmBlocker(m: CatalogModel): string | null {
  const need = memoryNeeded(m);
  if (need !== null && need > WASM_MEMORY_BYTES)
    return `Needs about ${formatBytes(need)} of memory; the CPU engine (wasm) can address 4 GB.`;
  return null;
}

function storageBlocker(m: CatalogModel, facts: DeviceFacts): Fit | null {
  const free = facts.storageFreeBytes;
  if (free === null) return null;
  if (m.downloadBytes !== null && m.downloadBytes > free)
    return {
      level: 'cannot-run',
      reason: `The download is ${formatBytes(m.downloadBytes)}, and this site may store only ${formatBytes(free)} more: free some space first.`,
    };
  // web-llm's weights are most of its GPU memory, but their exact size is only known at download.
  if (m.downloadBytes === null && m.vramRequiredMB !== null && m.vramRequiredMB * MB > free)
    return {
      level: 'may-not-fit',
      reason: `Its download may not fit the ${formatBytes(free)} this site may still store.`,
    };
  return null;
}

function memoryFit(m: CatalogModel, facts: DeviceFacts): Fit {
  const need = memoryNeeded(m);
  const where = m.engine === 'web-llm' ? 'GPU memory' : 'memory';
  if (need === null)
    return { level: 'fits', reason: 'Small enough for most devices (its size is not known).' };
  const needText = `Needs about ${formatBytes(need)} of ${where}`;
  if (facts.deviceMemoryGB === null) {
    return need <= UNKNOWN_MEMORY_COMFORT_MB * MB
      ? { level: 'fits', reason: `${needText}; this browser does not say how much the device has.` }
      : {
          level: 'may-not-fit',
          reason: `${needText}, more than many devices have; this browser does not say how much this one has.`,
        };
  }
  const have = facts.deviceMemoryGB * GB;
  // Chromium caps deviceMemory at 8, so "at least" is the honest reading of 8.
  const haveText = `${facts.deviceMemoryGB >= 8 ? 'at least ' : 'about '}${facts.deviceMemoryGB} GB`;
  if (need <= have * COMFORTABLE_MEMORY_SHARE)
    return { level: 'fits', reason: `${needText}; this device has ${haveText}.` };
  return {
    level: 'may-not-fit',
    reason: `${needText}; this device has ${haveText}, so it may run out of memory.`,
  };
}
