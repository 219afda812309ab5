/**
 * Opens an example's page in a fresh browser context (no service worker, no storage yet) and reads
 * what it did: each example page starts intab, creates a response, streams one, writes both into
 * `<output>`s and sets `body[data-done]`.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';

export interface ExampleRun {
  context: BrowserContext;
  page: Page;
  /** The text of each `<output>`, by id. */
  outputs: Record<string, string>;
  /** Uncaught errors and console errors while the page ran, in order. */
  errors: string[];
  /** The ids `GET /v1/models` lists in the page. */
  models: string[];
  /** The script URL of the service worker that controls the page. */
  controller: string | null;
  /**
   * The error code of a request to a web-llm model whose JSON schema xgrammar cannot compile:
   * `invalid_json_schema` when the engine worker loaded its lazy web-xgrammar chunk and ran it.
   */
  schemaRefusal: string | null;
}

/** Valid JSON Schema that intab's own checks pass and xgrammar cannot compile (minimum above maximum). */
const UNCOMPILABLE = { type: 'object', properties: { n: { type: 'integer', minimum: 5, maximum: 2 } } };

/**
 * Loads `url` and waits until the page says it is done (or reports why it is not).
 *
 * @example
 * const run = await runExamplePage(browser, `${app.baseUrl}/`);
 * expect(run.outputs.answer).toBe('You said: hello from a Vite app');
 */
export async function runExamplePage(browser: Browser, url: string, timeoutMs = 60_000): Promise<ExampleRun> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(url);
  try {
    await page.waitForSelector('body[data-done="true"]', { timeout: timeoutMs });
  } catch (err) {
    await context.close();
    throw new Error(`${url} did not finish: ${(err as Error).message}\npage errors:\n${errors.join('\n')}`);
  }
  const outputs = Object.fromEntries(
    await page.$$eval('output[id]', (els) => els.map((el) => [el.id, el.textContent ?? ''])),
  );
  const { models, controller } = await page.evaluate(async () => ({
    models: ((await (await fetch('/v1/models')).json()) as { data: { id: string }[] }).data.map((m) => m.id),
    controller: navigator.serviceWorker.controller?.scriptURL ?? null,
  }));
  // What the page reported while it ran; the refused request below logs xgrammar's own complaint.
  const pageErrors = [...errors];
  const model = models.find((id) => id.endsWith('-MLC') && !/embed/i.test(id));
  const schemaRefusal = model
    ? await page.evaluate(
        async ({ model, schema }) => {
          const res = await fetch('/v1/responses', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              model,
              input: 'x',
              text: { format: { type: 'json_schema', name: 'n', schema, strict: true } },
            }),
          });
          const body = (await res.json()) as { error?: { code?: string; message?: string } };
          // A server error says why, so a failure here names it.
          if (body.error?.code === 'server_error') return `server_error: ${body.error.message}`;
          return body.error?.code ?? `HTTP ${res.status}`;
        },
        { model, schema: UNCOMPILABLE },
      )
    : null;
  return { context, page, outputs, errors: pageErrors, models, controller, schemaRefusal };
}

/**
 * Loads `url` and waits for the first error the page reports (uncaught, or logged with
 * `console.error`), for pages that are expected to fail.
 *
 * @example
 * const message = await firstPageError(browser, `${app.baseUrl}/`);
 */
export async function firstPageError(browser: Browser, url: string, timeoutMs = 30_000): Promise<string[]> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(url);
    const end = Date.now() + timeoutMs;
    while (errors.length === 0 && Date.now() < end) await page.waitForTimeout(100);
    // Anything that follows within a moment belongs to the same failure.
    await page.waitForTimeout(500);
    return errors;
  } finally {
    await context.close();
  }
}

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`uncaught: ${err.message}`));
  page.on('console', (msg) => {
    // The browser's own network log is not the page's: readiness polls /v1/models through early 503s.
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) {
      errors.push(`console: ${msg.text()}`);
    }
  });
  return errors;
}

/** Whether web-llm's prebuilt models are listed, i.e. its lazy chunk loaded in the engine worker. */
export function listsWebLlmModels(models: string[]): boolean {
  return models.some((id) => id.endsWith('-MLC'));
}
