import { describe, expect, it } from 'vitest';
import { DEMO_REPLY_TOKENS, replyCap, TEST_MODEL_REPLY_TOKENS } from '../../../src/demo/reply-cap';

describe("the demo's reply cap (issue 46)", () => {
  it('leaves scripted alone, stops the random test model early, and caps every other model', () => {
    expect(replyCap('scripted', 'tiny-random')).toBeUndefined();
    expect(replyCap('tiny-random', 'tiny-random')).toBe(TEST_MODEL_REPLY_TOKENS);
    // A GGUF opened from disk is named after its file; a catalog model by its id.
    for (const model of ['my-model-Q4_K_M', 'Qwen3-0.6B-q4f16_1-MLC'])
      expect(replyCap(model, 'tiny-random')).toBe(DEMO_REPLY_TOKENS);
  });
});
