/** The download's progress line (src/demo/gguf-download.ts): bytes, speed and time left, in words. */
import { describe, expect, it } from 'vitest';
import { describeProgress } from '../../../src/demo/gguf-download';

const MB = 2 ** 20;

describe('describeProgress', () => {
  it('says bytes of total, speed and time left', () => {
    expect(describeProgress({ loaded: 300 * MB, total: 770 * MB, bytesPerSecond: 10 * MB })).toBe(
      '300 MB of 770 MB · 10.0 MB/s · about 47 s left',
    );
    expect(describeProgress({ loaded: 100 * MB, total: 2048 * MB, bytesPerSecond: 5 * MB })).toBe(
      '100 MB of 2.00 GB · 5.0 MB/s · about 7 min left',
    );
  });

  it('says what it can when the server gives no length or nothing has arrived yet', () => {
    expect(describeProgress({ loaded: 1.5 * MB, total: null, bytesPerSecond: 3 * MB })).toBe(
      '1.5 MB · 3.0 MB/s',
    );
    expect(describeProgress({ loaded: 0, total: 770 * MB, bytesPerSecond: 0 })).toBe(
      '0.0 MB of 770 MB · 0.0 MB/s · time left unknown',
    );
  });
});
