/**
 * A web-llm download in the demo (issue 24, item 3): a progress bar with bytes, speed and time left,
 * and Cancel. web-llm cannot download here (no WebGPU in the worker, no weights), so the page's
 * `intab.loadModel` is replaced by a stand-in that replays web-llm 0.2.86's own progress reports
 * shard by shard and, like its `unload()`, ends with `model_load_cancelled` when `cancelLoad` is
 * called. The real `cancelLoad` is also called once, through the service worker's leader, to show
 * it reaches the engine worker. Before this change the demo showed web-llm's text only, no Cancel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppSession, openApp } from './harness';

let app: AppSession & { pageErrors: string[] };
const ID = 'SmolLM2-135M-Instruct-q0f32-MLC';

beforeAll(async () => {
  app = await openApp();
});
afterAll(() => app?.close());

describe('a web-llm download in the demo', () => {
  it('reaches the engine worker: cancelLoad answers false when nothing is loading', async () => {
    const answer = await app.page.evaluate(async (id) => {
      await window.intab.ready;
      return window.intab.cancelLoad(id);
    }, ID);
    expect(answer).toBe(false);
  });

  it('shows bytes, speed and time left, and Cancel stops it, leaving the chat on scripted', async () => {
    const { page } = app;
    await page.evaluate(() => {
      const w = window as unknown as { cancelled: string[] };
      w.cancelled = [];
      let stop: (() => void) | null = null;
      const MB = 2 ** 20;
      window.intab.loadModel = async (_id, onProgress) => {
        onProgress?.({ progress: 0, text: 'Start to fetch params' });
        for (let i = 1; i <= 2; i++) {
          await new Promise((r) => setTimeout(r, 500));
          const fetched = i * 25 * MB;
          onProgress?.({
            progress: fetched / (100 * MB),
            text: `Fetching param cache[${i}/4]: ${fetched / MB}MB fetched. ${i * 25}% completed, ${i} secs elapsed. It can take a while when we first visit this page to populate the cache. Later refreshes will become faster.`,
          });
        }
        await new Promise<void>((r) => (stop = r));
        throw Object.assign(new Error(`Loading model '${_id}' was cancelled.`), {
          status: 503,
          code: 'model_load_cancelled',
        });
      };
      window.intab.cancelLoad = async (id) => {
        w.cancelled.push(id);
        stop?.();
        return true;
      };
    });
    const smol = page.locator('[data-testid="catalog-model"][data-model="SmolLM2-135M-Instruct"]');
    await smol.getByTestId('catalog-build').selectOption(ID);
    await smol.getByTestId('catalog-load').click();
    const status = page.getByTestId('load-status');
    await status.filter({ hasText: 'MB of 100 MB' }).waitFor({ timeout: 10_000 });
    await status.filter({ hasText: '50 MB of 100 MB' }).waitFor({ timeout: 10_000 });
    expect(await status.textContent()).toMatch(
      new RegExp(`^Downloading ${ID}: 50 MB of 100 MB · \\d+\\.\\d MB/s · about \\d+ s left$`),
    );
    expect(await page.getByTestId('load-progress').getAttribute('value')).toBe('0.5');
    const cancel = page.getByRole('button', { name: 'Cancel download' }).and(page.getByTestId('load-cancel'));
    await cancel.click();
    await status.filter({ hasText: 'cancelled' }).waitFor({ timeout: 10_000 });
    expect(await status.textContent()).toBe(
      `Download of ${ID} cancelled; the parts already downloaded are kept. The chat stays on scripted.`,
    );
    expect(await page.evaluate(() => (window as unknown as { cancelled: string[] }).cancelled)).toEqual([ID]);
    expect(await cancel.isHidden()).toBe(true);
    expect(await page.getByTestId('model-select').inputValue()).toBe('scripted');
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
