/**
 * A catalog GGUF "downloaded from Hugging Face" in Chromium: the page's `fetch` maps
 * `https://huggingface.co/…` to a local server that serves the tiny test GGUF (slowly, in chunks),
 * or stalls, cuts the connection, or answers 404. It proves the progress line (bytes, speed, time
 * left), Cancel, the clear message for each failure with the chat left on its model, the cache
 * (kept across a reload, no second download), and Delete.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTestModel } from '../../scripts/build-test-gguf.mjs';
import { type AppSession, openApp } from './harness';

const MODEL = 'SmolLM2-360M-Instruct-Q4_K_M';
const CHUNKS = 20;
let app: AppSession & { pageErrors: string[] };
let server: Server;
let okHits = 0;

beforeAll(async () => {
  const gguf = readFileSync((await ensureTestModel('tiny')).path);
  server = createServer((req, res) => {
    const mode = req.url?.split('/')[1];
    const headers = {
      'access-control-allow-origin': '*',
      'content-type': 'application/octet-stream',
      'content-length': String(gguf.length),
    };
    if (mode === 'missing') {
      res.writeHead(404, { 'access-control-allow-origin': '*' }).end('Entry not found');
      return;
    }
    res.writeHead(200, headers);
    const step = Math.ceil(gguf.length / CHUNKS);
    if (mode === 'stall') {
      res.write(gguf.subarray(0, step)); // then nothing, until the page cancels
      return;
    }
    if (mode === 'cut') {
      res.write(gguf.subarray(0, gguf.length >> 1), () => setTimeout(() => res.destroy(), 50));
      return;
    }
    okHits++;
    let i = 0;
    const next = (): void => {
      if (i >= CHUNKS) return void res.end();
      res.write(gguf.subarray(i * step, (i + 1) * step));
      i++;
      setTimeout(next, 40);
    };
    next();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  app = await openApp();
  await app.context.addInitScript(
    ({ port }) => {
      const real = window.fetch.bind(window);
      window.fetch = (input, init) => {
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
        const mode = localStorage.getItem('intab-test-hf-mode') ?? 'ok';
        return url.startsWith('https://huggingface.co/')
          ? real(url.replace('https://huggingface.co', `http://127.0.0.1:${port}/${mode}`), init)
          : real(input, init);
      };
    },
    { port },
  );
  await reload();
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => server?.close(resolve));
});

async function reload(): Promise<void> {
  await app.page.reload();
  await app.page
    .getByTestId('catalog-summary')
    .filter({ hasText: /in \d+ famil/ })
    .waitFor({ timeout: 30_000 });
}

/** Starts loading the GGUF build of SmolLM2 360M from the catalog, the server in `mode`. */
async function loadGguf(mode: 'ok' | 'stall' | 'cut' | 'missing'): Promise<void> {
  const { page } = app;
  await page.evaluate((m) => localStorage.setItem('intab-test-hf-mode', m), mode);
  const row = page.locator('[data-testid="catalog-model"][data-model="SmolLM2-360M-Instruct"]');
  await row.getByTestId('catalog-build').selectOption(MODEL);
  await row.getByTestId('catalog-load').click();
}

const status = () => app.page.getByTestId('download-status');
const chatModel = () => app.page.getByTestId('model-select').inputValue();

describe('downloading a catalog GGUF', () => {
  it('says a 404 in words, and the chat stays on scripted', async () => {
    await loadGguf('missing');
    await status().filter({ hasText: 'HTTP 404' }).waitFor({ timeout: 20_000 });
    expect(await status().textContent()).toMatch(
      /^The server answered HTTP 404 for https:\/\/huggingface\.co\/.*: the file is not there/,
    );
    expect(await chatModel()).toBe('scripted');
  });

  it('says a cut connection in words, keeps nothing, and the chat stays on scripted', async () => {
    await loadGguf('cut');
    await status().filter({ hasText: 'stopped' }).waitFor({ timeout: 20_000 });
    expect(await status().textContent()).toMatch(/^The download stopped/);
    expect(await app.page.getByTestId('cached-model').count()).toBe(0);
    expect(await chatModel()).toBe('scripted');
  });

  it('shows bytes while it runs, and Cancel stops it and keeps nothing', async () => {
    await loadGguf('stall');
    await status()
      .filter({ hasText: /MB of .* MB/ })
      .waitFor({ timeout: 20_000 });
    await app.page.getByTestId('download-cancel').click();
    await status().filter({ hasText: 'Download cancelled; nothing was kept.' }).waitFor({ timeout: 10_000 });
    expect(await app.page.getByTestId('download-progress').isHidden()).toBe(true);
    expect(await app.page.getByTestId('cached-model').count()).toBe(0);
    expect(await chatModel()).toBe('scripted');
  });

  it('downloads with progress (bytes, speed, time left), caches it, and loads it', async () => {
    const { page } = app;
    await page.evaluate(() => {
      const log: string[] = [];
      (window as unknown as { statusLog: string[] }).statusLog = log;
      const node = document.querySelector('[data-testid="download-status"]');
      if (node)
        new MutationObserver(() => log.push(node.textContent ?? '')).observe(node, {
          childList: true,
          characterData: true,
          subtree: true,
        });
    });
    await loadGguf('ok');
    await page
      .getByTestId('load-status')
      .filter({ hasText: `${MODEL} is loaded.` })
      .waitFor({ timeout: 60_000 });
    const log = await page.evaluate(() => (window as unknown as { statusLog: string[] }).statusLog);
    expect(
      log.some((line) =>
        /^Downloading SmolLM2-360M-Instruct-Q4_K_M: [\d.]+ MB of [\d.]+ MB · [\d.]+ MB\/s · (about \d+ s left|time left unknown)$/.test(
          line,
        ),
      ),
    ).toBe(true);
    expect(await chatModel()).toBe(MODEL);
    expect(await page.getByTestId('cached-model').count()).toBe(1);
    expect(okHits).toBe(1);
  });

  it('finds it cached after a reload (marked, no second download) and loads it again', async () => {
    await reload();
    const row = app.page.locator('[data-testid="catalog-model"][data-model="SmolLM2-360M-Instruct"]');
    expect(await row.textContent()).toContain('Cached');
    await loadGguf('ok');
    await app.page
      .getByTestId('load-status')
      .filter({ hasText: `${MODEL} is loaded.` })
      .waitFor({ timeout: 60_000 });
    expect(okHits).toBe(1);
  });

  it('deletes it from the storage list, freeing the space it says', async () => {
    const { page } = app;
    const before = await page.evaluate(async () => {
      const cache = await caches.open('intab-gguf');
      const [key] = await cache.keys();
      const size = key ? ((await (await cache.match(key))?.blob())?.size ?? 0) : 0;
      return { size };
    });
    expect(before.size).toBeGreaterThan(1 << 20);
    await page.getByTestId('cached-delete').click();
    const freed = Math.round(before.size / 2 ** 20);
    await status()
      .filter({ hasText: `Deleted SmolLM2-360M-Instruct-Q4_K_M: ${freed} MB freed.` })
      .waitFor({ timeout: 10_000 });
    expect(await page.evaluate(async () => (await (await caches.open('intab-gguf')).keys()).length)).toBe(0);
    expect(await page.getByTestId('cached-model').count()).toBe(0);
  });

  it("lists web-llm's cached weights with their size and deletes them (weights and config)", async () => {
    const { page } = app;
    const model = 'SmolLM2-135M-Instruct-q0f32-MLC';
    // Weights as web-llm 0.2.86 keeps them (Cache API, its default backend): two shards and a config.
    await page.evaluate(async (m) => {
      const base = `https://huggingface.co/mlc-ai/${m}/resolve/main/`;
      const weights = await caches.open('webllm/model');
      await weights.put(`${base}params_shard_0.bin`, new Response(new Uint8Array(3 << 20)));
      await weights.put(`${base}params_shard_1.bin`, new Response(new Uint8Array(1 << 20)));
      await (await caches.open('webllm/config')).put(`${base}mlc-chat-config.json`, new Response('{}'));
    }, model);
    await reload();
    const item = page.locator(`[data-testid="cached-model"][data-key="${model}"]`);
    expect(await item.textContent()).toBe(`${model} WebGPU · 4.0 MB Delete`);
    await item.getByTestId('cached-delete').click();
    await status()
      .filter({ hasText: `Deleted ${model}: 4 MB freed.` })
      .waitFor({ timeout: 10_000 });
    expect(
      await page.evaluate(async () => [
        (await (await caches.open('webllm/model')).keys()).length,
        (await (await caches.open('webllm/config')).keys()).length,
      ]),
    ).toEqual([0, 0]);
    expect(await item.count()).toBe(0);
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
