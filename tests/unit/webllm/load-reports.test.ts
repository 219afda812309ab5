/**
 * The bytes a web-llm load reports between web-llm's own per-shard reports
 * (src/engine/webllm/webllm-load-reports.ts): without them a page's bar stands still for a whole
 * shard (tens of MB), with no speed to show. Through the real engine and byte meter, with a fake
 * worker scope whose fetch delivers 1 KiB every 20 ms.
 */
import { describe, expect, it } from 'vitest';
import type { LoadProgress } from '../../../src/engine/types';
import { installByteMeter } from '../../../src/engine/webllm/webllm-download-meter';
import { BYTES_REPORT_MS, loadReporter } from '../../../src/engine/webllm/webllm-load-reports';
import { LLAMA, QWEN3, setup } from '../../helpers/webllm-fakes';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function dripScope(pieces: number, everyMs: number) {
  return {
    fetch: async (_input: RequestInfo | URL) =>
      new Response(
        new ReadableStream<Uint8Array>({
          async start(c) {
            for (let i = 0; i < pieces; i++) {
              await sleep(everyMs);
              c.enqueue(new Uint8Array(1024));
            }
            c.close();
          },
        }),
      ),
  };
}

describe('loadReporter', () => {
  it("adds the bytes received to web-llm's reports, and repeats the last one as bytes arrive, at most every BYTES_REPORT_MS", () => {
    let now = 0;
    const seen: LoadProgress[] = [];
    const reporter = loadReporter(new Set([(p: LoadProgress) => void seen.push(p)]), () => now);
    reporter.bytes(100); // before web-llm's first report: nothing to repeat
    reporter.report({ progress: 0, timeElapsed: 0, text: 'Start to fetch params' });
    now = BYTES_REPORT_MS - 1;
    reporter.bytes(50); // too soon
    now = BYTES_REPORT_MS;
    reporter.bytes(50);
    reporter.report({ progress: 0.5, timeElapsed: 1, text: 'Fetching param cache[1/2]: 1MB fetched.' });
    expect(seen).toEqual([
      { progress: 0, text: 'Start to fetch params', receivedBytes: 100 },
      { progress: 0, text: 'Start to fetch params', receivedBytes: 200 },
      { progress: 0.5, text: 'Fetching param cache[1/2]: 1MB fetched.', receivedBytes: 200 },
    ]);
  });

  it('keeps reporting to the other listeners when one throws', () => {
    const seen: number[] = [];
    const reporter = loadReporter(
      new Set([
        () => {
          throw new Error('a broken page');
        },
        (p: LoadProgress) => void seen.push(p.progress),
      ]),
    );
    reporter.report({ progress: 2, timeElapsed: 0, text: 'x' });
    expect(seen).toEqual([1]);
  });
});

describe('a web-llm load through the byte meter', () => {
  it('reports bytes while a shard downloads, between web-llm reports', async () => {
    const scope = dripScope(40, 20); // 800 ms for one 40 KiB "shard"
    const { engine, fake } = setup({ byteMeter: installByteMeter(scope) });
    await engine.load(QWEN3);
    fake().reloadImpl = async () => {
      fake().progress?.({ progress: 0, timeElapsed: 0, text: 'Start to fetch params' });
      await (await scope.fetch('https://hf.co/a/params_shard_0.bin')).arrayBuffer();
      fake().progress?.({ progress: 1, timeElapsed: 1, text: 'Fetching param cache[1/1]: 1MB fetched.' });
    };
    const seen: LoadProgress[] = [];
    await engine.load(LLAMA, (p) => seen.push(p));
    const between = seen.filter((p) => p.text === 'Start to fetch params').map((p) => p.receivedBytes);
    expect(between.length).toBeGreaterThanOrEqual(2); // the first report, then at least one repeat
    expect(between).toEqual([...between].sort((a, b) => (a ?? 0) - (b ?? 0)));
    expect(between.at(-1)).toBeGreaterThan(0);
    expect(seen.at(-1)?.receivedBytes).toBe(40 * 1024);
  });
});
