#!/usr/bin/env node
/**
 * Correctness of intab's SIMD llama.cpp build (issue 34) against wllama's stock wasm: greedy text of
 * the same prompts on the bench GGUF (Q8_0, the kernels the build changes) and the tiny one (F16),
 * through wllama called directly in the bench page, once per build. Prints, per prompt, how many
 * leading characters agree and whether the whole texts are equal.
 *
 * Needs the bench build (`npm run bench` once, or its build step): it reuses .tmp/bench-dist.
 *
 * GREEDY_JSON=file also writes every text, per model and build, so that two builds of the SIMD wasm
 * (say, before and after a kernel change) can be compared text for text.
 *
 * @example
 * node bench/wasm-greedy.mjs            # 3 prompts × 64 tokens
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { preview } from 'vite';
import { prompt } from './prompts.mjs';

const root = resolve(import.meta.dirname, '..');
const TOKENS = Number(process.env.GREEDY_TOKENS ?? 64);
const PROMPTS = [
  'Write a short story about a lighthouse keeper.',
  'List five facts about the moon.',
  prompt(1024, 7),
];

async function texts(browser, baseUrl, wasm, model) {
  const page = await (await browser.newContext({ baseURL: baseUrl })).newPage();
  await page.goto(`/bench/wllama.html${wasm === 'stock' ? '#wasm=stock' : ''}`);
  const bench = (name, ...args) => page.evaluate(([n, a]) => window.wllamaBench[n](...a), [name, args]);
  await page.evaluate(() => window.wllamaBench.ready);
  const info = await bench('threads');
  if (info.wasm !== wasm) throw new Error(`page runs ${info.wasm}, asked ${wasm}`);
  await bench('loadDirect', model);
  const out = [];
  for (const p of PROMPTS) out.push((await bench('directRun', model, p, TOKENS)).text);
  await page.context().close();
  return out;
}

const server = await preview({
  root,
  logLevel: 'warn',
  build: { outDir: resolve(root, '.tmp/bench-dist') },
  preview: { host: '127.0.0.1', port: 0 },
});
const baseUrl = server.resolvedUrls?.local[0]?.replace(/\/$/, '') ?? '';
const CHROMIUM = JSON.parse(readFileSync(new URL('../tests/chromium.json', import.meta.url), 'utf8'));
const browser = await chromium.launch(CHROMIUM);
const all = {};
try {
  for (const model of ['bench', 'tiny']) {
    const stock = await texts(browser, baseUrl, 'stock', model);
    const simd = await texts(browser, baseUrl, 'simd', model);
    all[model] = { stock, simd };
    if (process.env.GREEDY_JSON) writeFileSync(process.env.GREEDY_JSON, `${JSON.stringify(all, null, 2)}\n`);
    stock.forEach((s, i) => {
      const d = simd[i] ?? '';
      let same = 0;
      while (same < s.length && s[same] === d[same]) same++;
      console.log(
        JSON.stringify({
          model,
          prompt: i,
          equal: s === d,
          sameChars: same,
          stockChars: s.length,
          simdChars: d.length,
        }),
      );
      if (s !== d)
        console.log(
          `  stock: ${JSON.stringify(s.slice(0, 160))}\n  simd:  ${JSON.stringify(d.slice(0, 160))}`,
        );
    });
  }
} finally {
  await browser.close();
  await server.close();
}
