/**
 * The app the wllama template tests share: the tiny test GGUF registered as `tiny`, test pages on, so
 * a test can add the same GGUF again with a published chat template swapped in (`addWithTemplate`)
 * and compare llama.cpp's rendering with the template's own.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { type AppSession, openApp } from './harness';

export const TINY_URL = '/test-models/intab-tiny-random.gguf';
const options = { wllama: { stallTimeoutMs: 10_000, models: [{ id: 'tiny', url: TINY_URL }] } };
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
