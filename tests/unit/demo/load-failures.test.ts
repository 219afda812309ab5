/** One message per way a load fails (src/demo/load-failures.ts): what happened, what to do, where the chat stays. */
import { describe, expect, it } from 'vitest';
import { loadFailureMessage } from '../../../src/demo/load-failures';

const err = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

describe('loadFailureMessage', () => {
  it('says what to do for no WebGPU, GPU memory, a stopped download and the quota', () => {
    expect(
      loadFailureMessage('Qwen3-8B-q4f16_1-MLC', err('No adapter.', 'webgpu_unavailable'), 'scripted'),
    ).toBe(
      'Could not load Qwen3-8B-q4f16_1-MLC (No adapter). This browser cannot run it on the GPU: pick a CPU (GGUF) build, or an f32 build if only shader-f16 is missing. The chat stays on scripted.',
    );
    expect(loadFailureMessage('m', err('Device was lost: out of memory'), 'tiny')).toMatch(
      /^Could not load m \(Device was lost: out of memory\)\. Not enough GPU memory: .* The chat stays on tiny\.$/,
    );
    expect(loadFailureMessage('m', err('TypeError: Failed to fetch'), 's')).toContain(
      'The download stopped: check the connection and try again.',
    );
    expect(loadFailureMessage('m', err('QuotaExceededError'), 's')).toContain('Not enough storage');
  });

  it('keeps an unknown failure as it is, with where the chat stays', () => {
    expect(loadFailureMessage('m', err('Something odd.'), 'scripted')).toBe(
      'Could not load m (Something odd). The chat stays on scripted.',
    );
  });
});
