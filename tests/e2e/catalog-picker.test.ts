/**
 * The demo's catalog panel in Chromium under faked devices: the page's `navigator.gpu` answers with
 * an adapter of our choosing (with and without `shader-f16`, small and large limits) or is absent,
 * and `deviceMemory` and the storage estimate are set. The engine worker keeps its real probe; only
 * the page's judgement is under test. Also: the labels and keyboard path a person relies on.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEntry } from '../../src/catalog';
import { type AppSession, openApp } from './harness';

let app: AppSession & { pageErrors: string[] };

interface FakeDevice {
  gpu: { f16: boolean; maxBufferSize: number; maxStorageBufferBindingSize: number } | null;
  deviceMemory: number;
  storageFree: number;
}
const MB = 1 << 20;
const GB = 1 << 30;
const BIG: FakeDevice = {
  gpu: { f16: true, maxBufferSize: 4 * GB, maxStorageBufferBindingSize: 2 * GB },
  deviceMemory: 8,
  storageFree: 100 * GB,
};
const SMALL: FakeDevice = {
  gpu: { f16: false, maxBufferSize: 256 * MB, maxStorageBufferBindingSize: 128 * MB },
  deviceMemory: 4,
  storageFree: 20 * GB,
};
const NO_GPU: FakeDevice = { gpu: null, deviceMemory: 8, storageFree: 50 * GB };

beforeAll(async () => {
  app = await openApp();
  // Runs before the page's scripts on every load: the device this load should see, from storage.
  await app.context.addInitScript(() => {
    const raw = localStorage.getItem('intab-test-device');
    if (!raw) return;
    const d = JSON.parse(raw) as FakeDevice;
    const adapter = d.gpu && {
      features: new Set(d.gpu.f16 ? ['shader-f16'] : []),
      limits: {
        maxBufferSize: d.gpu.maxBufferSize,
        maxStorageBufferBindingSize: d.gpu.maxStorageBufferBindingSize,
      },
    };
    Object.defineProperty(navigator, 'gpu', {
      configurable: true,
      value: adapter ? { requestAdapter: async () => adapter } : undefined,
    });
    Object.defineProperty(navigator, 'deviceMemory', { configurable: true, value: d.deviceMemory });
    Object.defineProperty(navigator.storage, 'estimate', {
      configurable: true,
      value: async () => ({ quota: d.storageFree + 1000, usage: 1000 }),
    });
  });
});
afterAll(() => app?.close());

/** Reloads the demo as the given device sees it, and waits for the catalog to be drawn. */
async function as(device: FakeDevice): Promise<void> {
  const { page } = app;
  await page.evaluate((d) => localStorage.setItem('intab-test-device', JSON.stringify(d)), device);
  await page.reload();
  await page
    .getByTestId('catalog-summary')
    .filter({ hasText: /models? in \d+ famil/ })
    .waitFor({ timeout: 30_000 });
}

const row = (name: string) => app.page.locator(`[data-testid="catalog-model"][data-model="${name}"]`);

describe('the catalog panel under faked devices', () => {
  it('on a big GPU with shader-f16: groups by family, recommends a WebGPU model first, f16 builds fit', async () => {
    await as(BIG);
    const { page } = app;
    const families = await page
      .getByTestId('catalog-family')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-family')));
    expect(families).toContain('Qwen3');
    expect(families).toContain('Llama 3.2');
    expect(new Set(families).size).toBe(families.length);
    const first = page.getByTestId('catalog-model').first();
    expect(await first.textContent()).toContain('Recommended for this device');
    expect(await first.getByTestId('catalog-build').inputValue()).toMatch(/-MLC$/);
    // One entry per model: Llama 3.2 1B's builds (four web-llm, one GGUF) are options of one row.
    const llama = row('Llama-3.2-1B-Instruct');
    expect(await llama.count()).toBe(1);
    await llama.getByTestId('catalog-build').selectOption('Llama-3.2-1B-Instruct-q4f16_1-MLC');
    expect(await llama.getByTestId('catalog-fit').textContent()).toBe(
      'Fits: Needs about 879 MB of GPU memory; this device has at least 8 GB.',
    );
    expect(await llama.getByTestId('catalog-load').isEnabled()).toBe(true);
    if (process.env.INTAB_SCREENSHOT) {
      mkdirSync(resolve(import.meta.dirname, '../../docs'), { recursive: true });
      await page
        .getByTestId('catalog')
        .screenshot({ path: resolve(import.meta.dirname, '../../docs/catalog-picker.png') });
    }
  });

  it('without shader-f16 and with small limits: f16 builds are disabled with the reason, large models may not fit', async () => {
    await as(SMALL);
    const llama = row('Llama-3.2-1B-Instruct');
    const f16 = llama.locator('option[value="Llama-3.2-1B-Instruct-q4f16_1-MLC"]');
    expect(await f16.isDisabled()).toBe(true);
    expect(await f16.textContent()).toMatch(/— cannot run here$/);
    // The build selected at first is one that can run.
    expect(await llama.getByTestId('catalog-build').inputValue()).not.toContain('f16');
    const big = row('Llama-3.1-8B-Instruct');
    await big.getByTestId('catalog-build').selectOption('Llama-3.1-8B-Instruct-q4f32_1-MLC');
    expect(await big.getByTestId('catalog-fit').textContent()).toBe(
      'May not fit: This GPU binds at most 128 MB per buffer; web-llm makes only its low-resource builds for that.',
    );
  });

  it('without WebGPU: web-llm-only models are disabled with the reason, a CPU model is recommended', async () => {
    await as(NO_GPU);
    const mistral = row('Mistral-7B-Instruct-v0.3');
    expect(await mistral.getByTestId('catalog-load').isDisabled()).toBe(true);
    expect(await mistral.getByTestId('catalog-fit').textContent()).toBe(
      'Cannot run here: Needs WebGPU, which this browser does not offer: pick a CPU (GGUF) model.',
    );
    const first = app.page.getByTestId('catalog-model').first();
    expect(await first.textContent()).toContain('Recommended for this device');
    expect(await first.getByTestId('catalog-build').inputValue()).toBe('SmolLM2-1.7B-Instruct-Q4_K_M');
  });

  it('on this headless Chromium’s own adapter (SwiftShader, no GPU): a CPU build of at most 2 GB, and why', async () => {
    const { page } = app;
    await page.evaluate(() => localStorage.removeItem('intab-test-device'));
    await page.reload();
    await page
      .getByTestId('catalog-summary')
      .filter({ hasText: /models? in \d+ famil/ })
      .waitFor({ timeout: 30_000 });
    const adapter = await page.evaluate(async () => {
      const a = await (
        navigator as unknown as {
          gpu?: {
            requestAdapter(): Promise<{
              info?: { architecture?: string; vendor?: string; isFallbackAdapter?: boolean };
            } | null>;
          };
        }
      ).gpu?.requestAdapter();
      return a
        ? {
            architecture: a.info?.architecture ?? '',
            vendor: a.info?.vendor ?? '',
            fallback: a.info?.isFallbackAdapter ?? null,
          }
        : null;
    });
    const first = page.getByTestId('catalog-model').first();
    expect(await first.textContent()).toContain('Recommended for this device');
    const id = await first.getByTestId('catalog-build').inputValue();
    const model = catalogEntry(id);
    expect(model?.engine, `recommended ${id} on ${JSON.stringify(adapter)}`).toBe('wllama');
    expect(model?.downloadBytes).toBeLessThanOrEqual(2e9);
    // Why, in words: a software adapter where Chromium offers one, else no WebGPU at all.
    expect(await first.getByTestId('catalog-why').textContent()).toMatch(
      adapter ? /software one/ : /offers no WebGPU/,
    );
  });

  it('has a labelled search box that filters, labelled build selects, and a keyboard path to Load', async () => {
    await as(BIG);
    const { page } = app;
    const search = page.getByLabel('Search models');
    await search.focus();
    await page.keyboard.type('smollm2 360m');
    await expect.poll(() => page.getByTestId('catalog-model').count()).toBe(1);
    expect(await page.getByTestId('catalog-summary').textContent()).toBe('1 model in 1 family.');
    // Every build select has its label; Tab goes from the search to the select, then to Load.
    const unlabelled = await page
      .getByTestId('catalog-build')
      .evaluateAll((els) => els.filter((e) => (e as HTMLSelectElement).labels?.length !== 1).length);
    expect(unlabelled).toBe(0);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'catalog-build',
    );
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toMatch(
      /^Load SmolLM2-360M-Instruct-/,
    );
    await search.fill('no such model');
    expect(await page.getByTestId('catalog-summary').textContent()).toBe('No model matches “no such model”.');
  });

  it('a load that fails (no WebGPU in the worker, or no network for the weights) says so and leaves the chat on scripted', async () => {
    await as(BIG);
    const { page } = app;
    const id = 'SmolLM2-135M-Instruct-q0f32-MLC';
    const smol = row('SmolLM2-135M-Instruct');
    await smol.getByTestId('catalog-build').selectOption(id);
    await smol.getByTestId('catalog-load').click();
    const status = page.getByTestId('load-status');
    await status.filter({ hasText: `Could not load ${id}` }).waitFor({ timeout: 60_000 });
    expect(await status.textContent()).toMatch(
      new RegExp(`^Could not load ${id} \\(.+\\)\\. .*The chat stays on scripted\\.$`),
    );
    expect(await page.getByTestId('model-select').inputValue()).toBe('scripted');
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
