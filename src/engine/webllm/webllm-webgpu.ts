/**
 * The WebGPU check before a load, so a machine without a usable GPU gets a quick, clear 503 instead
 * of a multi-gigabyte download that fails at the end.
 */
import { serviceUnavailable } from '../../common/api-error';

/** A function returning a GPU adapter (or null), or a `navigator.gpu`-like object. */
export type GpuProbe = (() => Promise<unknown>) | { requestAdapter(): Promise<unknown> };

/** `requestAdapter()` can hang on some drivers (seen on Linux Chromium with a blocklisted GPU). */
const ADAPTER_TIMEOUT_MS = 5_000;

const NO_WEBGPU =
  'WebGPU is not available in this browser, and local models need it. Use a browser with WebGPU enabled ' +
  '(Chrome or Edge 113+, Safari 26+), or the scripted model.';

/** What the probe needs of a GPU adapter: its optional features (`shader-f16`, …). */
export interface AdapterLike {
  features?: { has(feature: string): boolean };
}

/**
 * Resolves with the GPU adapter when one is available; throws a 503 `webgpu_unavailable` otherwise.
 *
 * @example
 * const adapter = await probeWebGPU(); // uses navigator.gpu
 * await probeWebGPU(async () => null); // throws ApiError 503
 */
export async function probeWebGPU(probe?: GpuProbe): Promise<AdapterLike> {
  const request = toRequest(probe);
  if (!request) throw serviceUnavailable(NO_WEBGPU, 'webgpu_unavailable');
  let adapter: unknown;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), ADAPTER_TIMEOUT_MS);
    });
    adapter = await Promise.race([request(), timeout]);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw serviceUnavailable(`${NO_WEBGPU} (requestAdapter failed: ${why})`, 'webgpu_unavailable');
  } finally {
    clearTimeout(timer);
  }
  if (adapter === null || adapter === undefined) {
    throw serviceUnavailable(`${NO_WEBGPU} (no GPU adapter was found)`, 'webgpu_unavailable');
  }
  return adapter as AdapterLike;
}

/**
 * Throws a 503 naming the first of `required` (a model record's `required_features`) that the
 * adapter lacks: web-llm checks only after downloading the model's config, so offline or on a slow
 * link the real reason would hide behind a download error.
 *
 * @example
 * requireFeatures(adapter, ['shader-f16'], 'Qwen3-0.6B-q4f16_1-MLC');
 */
export function requireFeatures(adapter: AdapterLike, required: readonly string[], modelId: string): void {
  for (const feature of required) {
    if (adapter.features && !adapter.features.has(feature)) {
      const f32 = /q4f16_1|q0f16/.test(modelId)
        ? ` Try its f32 build ('${modelId.replace(/f16/, 'f32')}').`
        : '';
      throw serviceUnavailable(
        `This GPU does not support '${feature}', which the model '${modelId}' needs.${f32}`,
        'webgpu_unavailable',
      );
    }
  }
}

/**
 * Whether this browser has a WebGPU adapter with every one of `features`; false where it has none,
 * or the probe fails or hangs (bounded as {@link probeWebGPU}). For choices, not for errors.
 *
 * @example
 * await webGpuHas(['shader-f16']); // false on SwiftShader
 */
export async function webGpuHas(features: readonly string[], probe?: GpuProbe): Promise<boolean> {
  try {
    const adapter = await probeWebGPU(probe);
    return features.every((f) => adapter.features?.has(f) === true);
  } catch {
    return false;
  }
}

function toRequest(probe: GpuProbe | undefined): (() => Promise<unknown>) | null {
  if (typeof probe === 'function') return probe;
  // Workers expose `navigator.gpu` too (WorkerNavigator); Node has a navigator without it.
  const gpu = probe ?? (globalThis.navigator as { gpu?: GpuProbe } | undefined)?.gpu;
  if (!gpu || typeof gpu === 'function' || typeof gpu.requestAdapter !== 'function') return null;
  return () => gpu.requestAdapter();
}
