/** WebGPU probing for the status line, from inside the engine worker (where web-llm will run). */
import type { GpuStatus } from './protocol';

/**
 * Asks for a WebGPU adapter and describes it. Never throws: absence is reported with a reason.
 *
 * @example
 * const s = await probeGpu(); // { available: false, adapter: null, features: [], reason: '…' }
 */
export async function probeGpu(nav: { gpu?: GPU } = navigator): Promise<GpuStatus> {
  const gpu = nav.gpu;
  if (!gpu) {
    return unavailable('WebGPU is not available here (navigator.gpu is missing; it needs a secure context).');
  }
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return unavailable('The browser exposes WebGPU but found no usable GPU adapter.');
    const info = adapter.info;
    const name = [info?.vendor, info?.architecture, info?.description].filter(Boolean).join(' ');
    return { available: true, adapter: name || 'unknown adapter', features: [...adapter.features].sort() };
  } catch (err) {
    return unavailable(`requestAdapter() failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function unavailable(reason: string): GpuStatus {
  return { available: false, adapter: null, features: [], reason };
}
