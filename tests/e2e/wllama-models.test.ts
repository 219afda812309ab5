/**
 * GGUF models in Chromium through the real service worker, run by llama.cpp (wllama's WebAssembly):
 * loading one with progress, an embedding model, and a model the user picked as a File.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addPickedFile,
  embeddingsError,
  listModels,
  loadWithProgress,
  sdkCreate,
  sdkEmbed,
} from './wllama.page';
import { closeWllamaApp, openWllamaApp, TINY_URL, usageOf, type WllamaApp } from './wllama-app';

let app: WllamaApp;
beforeAll(async () => {
  app = await openWllamaApp();
});
afterAll(() => closeWllamaApp(app));

describe('loading a GGUF model', () => {
  it('lists the GGUF models with their engine, not yet cached, before any load', async () => {
    const models = await app.page.evaluate(listModels);
    const tiny = models.find((m) => m.id === 'tiny');
    expect(tiny).toMatchObject({ engine: 'wllama', owned_by: 'wllama', cached: false });
    expect(tiny?.device).toBeUndefined();
    expect(tiny?.wasm).toBeUndefined();
    expect(models.find((m) => m.id === 'scripted')).toBeTruthy();
  });

  it('reports download and load progress, ending ready, then lists the model as cached and where it runs', async () => {
    const { reports, error } = await app.page.evaluate(loadWithProgress, 'tiny');
    expect(error).toBeNull();
    expect(reports.some((r) => r.text.startsWith("Fetching 'tiny'"))).toBe(true);
    expect(reports.some((r) => /MB/.test(r.text))).toBe(true);
    expect(reports.some((r) => /Starting llama\.cpp/.test(r.text))).toBe(true);
    const progress = reports.map((r) => r.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(reports.at(-1)).toMatchObject({ progress: 1 });
    expect(reports.at(-1)?.text).toMatch(/ready \(llama\.cpp on the CPU\)/);
    const tiny = (await app.page.evaluate(listModels)).find((m) => m.id === 'tiny');
    // intab's llama.cpp build with ggml's wasm SIMD kernels runs it, not wllama's stock wasm (issue 34).
    expect(tiny).toMatchObject({ cached: true, device: 'cpu', wasm: 'simd' });
  });
});

describe('embeddings', () => {
  it('embeds with a GGUF model registered as an embedding model', async () => {
    const { vectors, tokens } = await app.page.evaluate(sdkEmbed, {
      model: 'tiny-embed',
      input: ['hello world', 'hello world', 'goodbye'],
    });
    expect(vectors).toHaveLength(3);
    expect(vectors[0]).toHaveLength(64);
    expect(vectors[0]).toEqual(vectors[1]);
    expect(vectors[0]).not.toEqual(vectors[2]);
    const norm = Math.hypot(...(vectors[0] as number[]));
    expect(norm).toBeCloseTo(1, 3);
    expect(tokens).toBeGreaterThan(3);
  });

  it('refuses to chat with it, and refuses embeddings from a chat model, with a 400 on model', async () => {
    const chat = await app.page.evaluate(sdkCreate, { model: 'tiny-embed', input: 'hi' });
    expect(chat.error).toMatchObject({ status: 400, param: 'model', code: 'unsupported_model' });
    const embed = await app.page.evaluate(embeddingsError, 'tiny');
    expect(embed).toMatchObject({ status: 400, error: { param: 'model', code: 'unsupported_model' } });
  });
});

describe('a model the user picked', () => {
  it('serves a File handed to intab.addModel', async () => {
    const listing = await app.page.evaluate(addPickedFile, { id: 'picked', url: TINY_URL });
    expect(listing).toMatchObject({ id: 'picked', engine: 'wllama', cached: true });
    const { response, error } = await app.page.evaluate(sdkCreate, {
      model: 'picked',
      input: 'Hello there',
      max_output_tokens: 16,
      temperature: 0,
    });
    expect(error).toBeNull();
    expect(usageOf(response).output_tokens).toBe(16);
  });
});
