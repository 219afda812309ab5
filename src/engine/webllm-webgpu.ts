/**
 * The WebGPU check before a load, so a machine without a usable GPU gets a quick, clear 503 instead
 * of a multi-gigabyte download that fails at the end.
 */
import { serviceUnavailable } from '../core/api-error';

/** A function returning a GPU adapter (or null), or a `navigator.gpu`-like object. */
export type GpuProbe = (() => Promise<unknown>) | { requestAdapter(): Promise<unknown> };

/** `requestAdapter()` can hang on some drivers (seen on Linux Chromium with a blocklisted GPU). */
const ADAPTER_TIMEOUT_MS = 5_000;

const NO_WEBGPU =
  'WebGPU is not available in this browser, and local models need it. Use a browser with WebGPU enabled ' +
  '(Chrome or Edge 113+, Safari 26+), or the scripted model.';

/**
 * Resolves when a GPU adapter is available; throws a 503 `webgpu_unavailable` otherwise.
 *
 * @example
 * await probeWebGPU(); // uses navigator.gpu
 * await probeWebGPU(async () => null); // throws ApiError 503
 */
export async function probeWebGPU(probe?: GpuProbe): Promise<void> {
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
}

function toRequest(probe: GpuProbe | undefined): (() => Promise<unknown>) | null {
  if (typeof probe === 'function') return probe;
  // Workers expose `navigator.gpu` too (WorkerNavigator); Node has a navigator without it.
  const gpu = probe ?? (globalThis.navigator as { gpu?: GpuProbe } | undefined)?.gpu;
  if (!gpu || typeof gpu === 'function' || typeof gpu.requestAdapter !== 'function') return null;
  return () => gpu.requestAdapter();
}
