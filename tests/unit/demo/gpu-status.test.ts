import { describe, expect, it } from 'vitest';
import { formatGpuStatus } from '../../../src/demo/gpu-status';
import { probeGpu } from '../../../src/worker/gpu-status';

describe('the WebGPU status line', () => {
  it('reads as one sentence for every reason the probe gives', async () => {
    const reasons = await Promise.all([
      probeGpu({}),
      probeGpu({ gpu: { requestAdapter: async () => null } as unknown as GPU }),
      probeGpu({ gpu: { requestAdapter: async () => Promise.reject(new Error('lost')) } as unknown as GPU }),
    ]);
    for (const status of reasons) {
      const line = formatGpuStatus(status);
      expect(line).toMatch(/^WebGPU: unavailable, only the scripted model can run — \S/);
      expect(line).toContain(status.reason);
      // Punctuation never piles up where the reason ends (it read "adapter.; only …").
      expect(line).not.toMatch(/[.;:,]\s*[.;:,]/);
    }
  });

  it('names the adapter and shader-f16 when WebGPU is there', () => {
    expect(formatGpuStatus({ available: true, adapter: 'swiftshader', features: ['shader-f16'] })).toBe(
      'WebGPU: available (swiftshader) — shader-f16: yes',
    );
  });
});
