/**
 * The app the wllama e2e files share: the tiny test GGUF (scripts/build-test-gguf.mjs: Llama 3
 * vocabulary and chat template, random weights) registered as `tiny`, as the embedding model
 * `tiny-embed`, and as `crashy` (llama.cpp aborts on its first result), plus the readers of what
 * the wllama.page.ts functions return.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { type AppSession, openApp } from './harness';

export const TINY_URL = '/test-models/intab-tiny-random.gguf';
/** No token, no prompt progress for this long: the instance is declared hung and discarded. */
export const STALL_MS = 10_000;
const options = {
  wllama: {
    stallTimeoutMs: STALL_MS,
    maxLoaded: 2,
    models: [
      { id: 'tiny', url: TINY_URL, label: 'tiny random model' },
      { id: 'tiny-embed', url: TINY_URL, kind: 'embeddings' },
      // wllama's own fault injection: llama.cpp calls abort() when it sends its first result.
      { id: 'crashy', url: TINY_URL, loadOptions: { pooling_type: 'test_stack_trace_abort' } },
    ],
  },
};
const path = `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`;

export type WllamaApp = AppSession & { pageErrors: string[]; consoleLines: string[] };

/**
 * Opens the app with the wllama models above, test pages on; each file opens its own.
 *
 * @example
 * let app: WllamaApp;
 * beforeAll(async () => { app = await openWllamaApp(); });
 * afterAll(() => closeWllamaApp(app));
 */
export function openWllamaApp(): Promise<WllamaApp> {
  return openApp({ path, testPages: true });
}

/** Closes the app, failing the file if the page threw anywhere during its tests. */
export async function closeWllamaApp(app: WllamaApp | undefined): Promise<void> {
  try {
    if (app) expect(app.pageErrors, 'errors in the page').toEqual([]);
  } finally {
    await app?.close();
  }
}

export const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default ? addFormats.default(ajv) : (addFormats as unknown as (a: Ajv2020) => void)(ajv);

export type Json = Record<string, unknown>;
export const outputText = (r: Json | null): string =>
  ((r?.output as Json[] | undefined) ?? [])
    .flatMap((item) => (item.type === 'message' ? (item.content as Json[]) : []))
    .map((c) => String(c.text ?? ''))
    .join('');
/** The first choice of a chat completion, or an empty object. */
export const choiceOf = (r: { completion: Json | null }): Json =>
  ((r.completion?.choices ?? []) as Json[])[0] ?? {};
export const usageOf = (r: Json | null) =>
  r?.usage as {
    input_tokens: number;
    output_tokens: number;
    input_tokens_details: { cached_tokens: number };
  };
