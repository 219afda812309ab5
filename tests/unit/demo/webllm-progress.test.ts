/**
 * A web-llm download's bytes, speed and time left (src/demo/webllm-progress.ts), read from the
 * reports web-llm 0.2.86 really sends (the strings of its lib/index.js). Before, the demo showed
 * only web-llm's own text: no speed, no time left.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeProgress } from '../../../src/demo/gguf-download';
import {
  estimatedDownloadBytes,
  parseWebLlmReport,
  webLlmDownloadMeter,
} from '../../../src/demo/webllm-progress';

const MB = 2 ** 20;
/** web-llm 0.2.86's report for shard `i` of `n`, `fetched` of `total` bytes, as fetchTensorCacheInternal writes it. */
function fetching(i: number, n: number, fetched: number, total: number, secs: number) {
  const text =
    `Fetching param cache[${i}/${n}]: ${Math.ceil(fetched / MB)}MB fetched. ` +
    `${Math.floor((fetched * 100) / total)}% completed, ${secs} secs elapsed. ` +
    'It can take a while when we first visit this page to populate the cache. Later refreshes will become faster.';
  return { progress: fetched / total, text };
}

describe('parseWebLlmReport', () => {
  it('reads bytes fetched and the total they imply from a shard report', () => {
    expect(parseWebLlmReport(fetching(1, 4, 100 * MB, 400 * MB, 3))).toEqual({
      loaded: 100 * MB,
      total: 400 * MB,
    });
  });

  it('knows the start of the download, and leaves other reports to their text', () => {
    expect(parseWebLlmReport({ progress: 0, text: 'Start to fetch params' })).toEqual({
      loaded: 0,
      total: null,
    });
    const fromCache = 'Loading model from cache[2/4]: 200MB loaded. 50% completed, 4 secs elapsed.';
    expect(parseWebLlmReport({ progress: 0.5, text: fromCache })).toBeNull();
    expect(parseWebLlmReport({ progress: 1, text: 'Finish loading on WebGPU - nvidia' })).toBeNull();
  });

  it('never reports more loaded than total, and totals within 1 MB per shard fraction (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 64 * MB }),
        fc.integer({ min: 1, max: 200 }),
        (n, shard, k) => {
          const i = Math.min(k, n);
          const total = n * shard;
          const parsed = parseWebLlmReport(fetching(i, n, i * shard, total, 1));
          expect(parsed).not.toBeNull();
          const { loaded, total: got } = parsed as { loaded: number; total: number };
          expect(loaded).toBeLessThanOrEqual(got);
          // web-llm rounds the MB up: off by under 1 MB of fetched, scaled by 1 / progress.
          expect(Math.abs(got - total)).toBeLessThanOrEqual(MB / (i / n) + 1);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('webLlmDownloadMeter', () => {
  it('measures speed on the page clock and gives time left in the GGUF download words', () => {
    let now = 0;
    const meter = webLlmDownloadMeter({ now: () => now });
    expect(meter({ progress: 0, text: 'Start to fetch params' })).toMatchObject({
      loaded: 0,
      total: null,
      bytesPerSecond: 0,
    });
    now = 10_000;
    const d = meter(fetching(3, 22, 100 * MB, 770 * MB, 10));
    expect(d).toEqual({ loaded: 100 * MB, total: 770 * MB, bytesPerSecond: 10 * MB, estimated: false });
    expect(describeProgress(d as NonNullable<typeof d>)).toBe(
      '100 MB of 770 MB · 10.0 MB/s · about 67 s left',
    );
  });

  it("shows the caller's estimate as the total until web-llm's first shard, flagged as one", () => {
    const meter = webLlmDownloadMeter({ estimatedBytes: 900 * MB, now: () => 0 });
    expect(meter({ progress: 0, text: 'Start to fetch params' })).toMatchObject({
      total: 900 * MB,
      estimated: true,
    });
    expect(meter(fetching(1, 4, 100 * MB, 400 * MB, 1))).toMatchObject({ total: 400 * MB, estimated: false });
  });

  it("moves with the network's bytes between shards, the speed the network's, never backwards or past the total", () => {
    let now = 0;
    const meter = webLlmDownloadMeter({ now: () => now });
    // The config and wasm came first: 5 MB received before the weights start.
    meter({ progress: 0, text: 'Start to fetch params', receivedBytes: 5 * MB });
    now = 2_000;
    const mid = meter({ progress: 0, text: 'Start to fetch params', receivedBytes: 25 * MB });
    expect(mid).toMatchObject({ loaded: 20 * MB, total: null, bytesPerSecond: 10 * MB });
    now = 4_000;
    const shard = meter({ ...fetching(1, 4, 25 * MB, 100 * MB, 4), receivedBytes: 45 * MB });
    // 40 MB arrived (shard 1 and parts of the three downloading beside it); web-llm counts 25 MB done.
    expect(shard).toMatchObject({ loaded: 40 * MB, total: 100 * MB, bytesPerSecond: 10 * MB });
    now = 5_000;
    // Shards found in the cache: web-llm's figure jumps past the network's.
    const cached = meter({ ...fetching(4, 4, 100 * MB, 100 * MB, 5), receivedBytes: 50 * MB });
    expect(cached).toMatchObject({ loaded: 100 * MB, total: 100 * MB });
    now = 6_000;
    expect(meter({ ...fetching(4, 4, 100 * MB, 100 * MB, 6), receivedBytes: 60 * MB })?.loaded).toBe(
      100 * MB,
    );
  });

  it('answers null for reports that are not the download', () => {
    const meter = webLlmDownloadMeter();
    expect(meter({ progress: 0.1, text: 'Loading model from cache[1/4]: 100MB loaded.' })).toBeNull();
  });
});

describe('estimatedDownloadBytes', () => {
  it("uses the catalog's memory need for a web-llm build, null outside the catalog", () => {
    const bytes = estimatedDownloadBytes('Qwen3-0.6B-q4f16_1-MLC');
    expect(bytes).toBeGreaterThan(100 * MB);
    expect(estimatedDownloadBytes('scripted')).toBeNull();
  });
});
