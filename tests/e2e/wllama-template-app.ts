/**
 * The app the wllama template tests share: the tiny test GGUF registered as `tiny`, test pages on, so
 * a test can add the same GGUF again with a published chat template swapped in (`addWithTemplate`)
 * and compare llama.cpp's rendering with the template's own. `logPrompts` is on: the engine logs the
 * prompt llama.cpp read (its tokens, detokenized), which `promptOf` reads back.
 */
import { readFileSync } from 'node:fs';
import llama3Tokenizer from 'llama3-tokenizer-js';
import { afterAll, beforeAll, expect } from 'vitest';
import { PROMPT_LOG_PREFIX } from '../../src/engine/wllama/prompt-log';
import { type AppSession, openApp } from './harness';

export const TINY_URL = '/test-models/intab-tiny-random.gguf';
const options = {
  wllama: { stallTimeoutMs: 10_000, logPrompts: true, models: [{ id: 'tiny', url: TINY_URL }] },
};
const path = `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`;

export type TemplateApp = AppSession & { pageErrors: string[]; consoleLines: string[] };

/**
 * Opens the app before the file's tests and closes it after; the returned getter reads it.
 *
 * @example
 * const app = useTinyApp();
 * it('…', async () => { await app().page.evaluate(respond, body); });
 */
export function useTinyApp(): () => TemplateApp {
  let app: TemplateApp | undefined;
  beforeAll(async () => {
    app = await openApp({ path, testPages: true });
  });
  afterAll(() => app?.close());
  return () => {
    if (!app) throw new Error('the app is not open yet');
    return app;
  };
}

/** A vendored published chat template (tests/fixtures/templates/), by file name. */
export function publishedTemplate(file: string): string {
  return readFileSync(new URL(`../fixtures/templates/${file}`, import.meta.url), 'utf8');
}

/**
 * The last prompt llama.cpp read for `model` (the engine's `logPrompts` line), or null if none yet.
 *
 * @example
 * expect(promptOf(app(), 'tiny31')).toBe(published);
 */
export function promptOf(app: TemplateApp, model: string): string | null {
  const head = `${PROMPT_LOG_PREFIX} ${JSON.stringify(model)} `;
  const line = app.consoleLines.findLast((l) => l.startsWith(`debug: ${head}`));
  return line === undefined ? null : (JSON.parse(line.slice(`debug: ${head}`.length)) as string);
}

/** Token ids of `text` in Llama 3's vocabulary (the tiny test GGUF's), special tokens as written. */
export const llama3Tokens = (text: string): number[] =>
  llama3Tokenizer.encode(text, { bos: false, eos: false });

/**
 * Asserts that llama.cpp read `expected` for `model`: the prompt's tokens as llama.cpp detokenizes
 * them are `expected`'s text, and as many as Llama 3's vocabulary makes of `expected` (`input_tokens`,
 * llama.cpp's own count: the same text cut into other tokens would differ).
 *
 * @example
 * expectPrompt(app(), 'tiny31', published, r.inputTokens);
 */
export function expectPrompt(
  app: TemplateApp,
  model: string,
  expected: string,
  inputTokens: number | null,
): void {
  const prompt = promptOf(app, model);
  expect(prompt, `the prompt llama.cpp read for '${model}'`).toBe(expected);
  expect(inputTokens).toBe(llama3Tokens(expected).length);
}
