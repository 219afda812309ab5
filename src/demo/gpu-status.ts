/**
 * The WebGPU status line. It tells a visitor up front whether the web-llm models can run at all, so a
 * failed multi-GB download is never the first sign that WebGPU is missing.
 */
import type { IntabClient } from '../client';
import { errorMessage } from './dom';

type GpuStatus = Awaited<ReturnType<IntabClient['gpuStatus']>>;

/**
 * Formats a `gpuStatus()` result as one line.
 * @example
 * formatGpuStatus({ available: true, adapter: 'swiftshader', features: [] });
 * // → "WebGPU: available (swiftshader) — shader-f16: no"
 */
export function formatGpuStatus(status: GpuStatus): string {
  if (!status.available) {
    // The reason is a sentence of its own (it ends with a period), so it goes last.
    return `WebGPU: unavailable, only the scripted model can run — ${status.reason ?? 'no adapter.'}`;
  }
  // shader-f16 decides which web-llm builds (q4f16 vs q4f32) can run, so it is worth showing.
  const f16 = status.features.includes('shader-f16') ? 'yes' : 'no';
  return `WebGPU: available (${status.adapter ?? 'unknown adapter'}) — shader-f16: ${f16}`;
}

/**
 * Fills `target` with the GPU status once it is known.
 * @example
 * void showGpuStatus(intab, document.querySelector('[data-testid=gpu-status]')!);
 */
export async function showGpuStatus(
  intab: Pick<IntabClient, 'gpuStatus'>,
  target: HTMLElement,
): Promise<void> {
  target.textContent = 'WebGPU: checking…';
  try {
    const status = await intab.gpuStatus();
    target.textContent = formatGpuStatus(status);
    target.classList.toggle('is-warning', !status.available);
  } catch (err) {
    target.textContent = `WebGPU: unknown — ${errorMessage(err)}`;
    target.classList.add('is-warning');
  }
}
