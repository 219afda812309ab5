/**
 * llama.cpp failing in Chromium: an instance that crashes (wllama's own fault injection) or hangs
 * (its worker busy forever) fails that request with an OpenAI error in bounded time, and the next
 * request is served by a new instance.
 */
import type { Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkCreate } from './wllama.page';
import { closeWllamaApp, openWllamaApp, usageOf, type WllamaApp } from './wllama-app';

let app: WllamaApp;
beforeAll(async () => {
  app = await openWllamaApp();
});
afterAll(() => closeWllamaApp(app));

describe('crash recovery', () => {
  it("fails a request whose llama.cpp crashes with llama.cpp's own words, and keeps serving", async () => {
    for (let round = 0; round < 2; round++) {
      const crashed = await app.page.evaluate(sdkCreate, {
        model: 'crashy',
        input: 'hi',
        max_output_tokens: 16,
      });
      expect(crashed.error?.status).toBe(500);
      expect(crashed.error?.code).toBe('model_crashed');
      expect(crashed.error?.message).toMatch(/llama\.cpp crashed/);
      // The crash's own code and words, not a deadline's (model_unresponsive, timeout): the crash
      // ended the request, whatever the machine's speed.
      expect(crashed.error?.message).toMatch(/Aborted\(\)/);
      const fine = await app.page.evaluate(sdkCreate, {
        model: 'tiny',
        input: 'still there?',
        max_output_tokens: 16,
      });
      expect(fine.error).toBeNull();
      expect(usageOf(fine.response).output_tokens).toBe(16);
    }
  });

  it('fails a request whose llama.cpp worker hangs within the stall bound, then starts a new instance', async () => {
    // Every llama.cpp worker (wllama's blob: workers) stops answering, as a wedged wasm thread would.
    const llamaWorkers = app.page.workers().filter((w: Worker) => w.url().startsWith('blob:'));
    expect(llamaWorkers.length).toBeGreaterThan(0);
    for (const w of llamaWorkers) {
      void w
        .evaluate(() => {
          const end = Date.now() + 120_000;
          while (Date.now() < end) {
            // busy: the worker's event loop never runs again
          }
        })
        .catch(() => {});
    }
    const hung = await app.page.evaluate(sdkCreate, {
      model: 'tiny',
      input: 'anyone?',
      max_output_tokens: 16,
    });
    expect(hung.error?.code).toBe('model_unresponsive');
    // The stall bound's code (the app's stall bound), not another deadline's: it is what ended the request.
    expect(hung.error?.status).toBe(504);
    const fresh = await app.page.evaluate(sdkCreate, {
      model: 'tiny',
      input: 'and now?',
      max_output_tokens: 16,
    });
    expect(fresh.error).toBeNull();
    expect(usageOf(fresh.response).output_tokens).toBe(16);
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
