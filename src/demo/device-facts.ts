/**
 * Gathers the browser's facts about this device for `deviceFit` (src/catalog/device-fit.ts): the
 * page's own WebGPU adapter (its `shader-f16` and buffer limits), `navigator.deviceMemory` and the
 * storage quota left. Each is bounded and optional: a browser that does not say gives null.
 */
import type { DeviceFacts } from '../catalog';

/** `requestAdapter()` can hang on a blocklisted driver; the picker must not wait on it forever. */
const ADAPTER_TIMEOUT_MS = 3_000;

interface AdapterInfoLike {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
  isFallbackAdapter?: boolean;
}
interface AdapterLike {
  features: { has(name: string): boolean };
  limits: { maxBufferSize: number; maxStorageBufferBindingSize: number };
  /** Chromium 114+; `isFallbackAdapter` on it since 134. */
  info?: AdapterInfoLike;
  /** The older place of the flag (deprecated). */
  isFallbackAdapter?: boolean;
}

/** Software rasterisers that expose WebGPU on the CPU: Chromium's SwiftShader, Mesa's llvmpipe/lavapipe, WARP. */
const SOFTWARE_ADAPTER = /swiftshader|llvmpipe|lavapipe|softpipe|microsoft basic render|\bwarp\b/i;

/**
 * Whether an adapter is a software one: flagged so by the browser, or named so.
 *
 * @example
 * isSoftwareAdapter({ info: { vendor: 'google', architecture: 'swiftshader' } }); // true
 */
export function isSoftwareAdapter(adapter: Pick<AdapterLike, 'info' | 'isFallbackAdapter'>): boolean {
  const info = adapter.info ?? {};
  if (info.isFallbackAdapter === true || adapter.isFallbackAdapter === true) return true;
  return SOFTWARE_ADAPTER.test([info.vendor, info.architecture, info.device, info.description].join(' '));
}
interface NavigatorFacts {
  gpu?: { requestAdapter(): Promise<AdapterLike | null> };
  deviceMemory?: number;
  storage?: { estimate?(): Promise<{ quota?: number; usage?: number }> };
}

/**
 * Reads the facts from `nav` (the page's `navigator` by default).
 *
 * @example
 * const facts = await readDeviceFacts();
 * deviceFit(catalogEntry('Qwen3-0.6B-q4f16_1-MLC')!, facts).reason;
 */
export async function readDeviceFacts(
  nav: NavigatorFacts = navigator as NavigatorFacts,
): Promise<DeviceFacts> {
  const [webgpu, storageFreeBytes] = await Promise.all([readAdapter(nav), readStorage(nav)]);
  const memory = nav.deviceMemory;
  return {
    webgpu,
    deviceMemoryGB: typeof memory === 'number' && memory > 0 ? memory : null,
    storageFreeBytes,
  };
}

async function readAdapter(nav: NavigatorFacts): Promise<DeviceFacts['webgpu']> {
  if (!nav.gpu) return null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const adapter = await Promise.race([
      nav.gpu.requestAdapter(),
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), ADAPTER_TIMEOUT_MS);
      }),
    ]);
    if (!adapter) return null;
    return {
      shaderF16: adapter.features.has('shader-f16'),
      maxBufferSize: adapter.limits.maxBufferSize,
      maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
      fallback: isSoftwareAdapter(adapter),
    };
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

async function readStorage(nav: NavigatorFacts): Promise<number | null> {
  try {
    const estimate = await nav.storage?.estimate?.();
    if (typeof estimate?.quota !== 'number') return null;
    return Math.max(0, estimate.quota - (estimate.usage ?? 0));
  } catch {
    return null;
  }
}

/** What the engine worker says of its own WebGPU (`intab.gpuStatus()`), or null when it did not answer. */
export interface WorkerGpu {
  available: boolean;
  features: string[];
}

/**
 * The page's facts as the engine sees them (issue 42): web-llm runs in the engine worker, and a
 * browser may give pages WebGPU and workers none (Firefox on Linux without a pref, Safari before
 * 26). The catalog's recommendation follows the worker: without its WebGPU, no web-llm build fits.
 *
 * @example
 * asEngineSees(await readDeviceFacts(), await intab.gpuStatus().catch(() => null));
 */
export function asEngineSees(facts: DeviceFacts, worker: WorkerGpu | null): DeviceFacts {
  if (!facts.webgpu) return facts;
  return worker?.available ? facts : { ...facts, webgpu: null };
}
