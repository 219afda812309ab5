/**
 * Issue 22's bundle cost: a page that uses no hosted tool downloads no new byte. The demo is loaded
 * and chats with `scripted`, and the requests of the page and its workers are watched from the
 * first navigation: pdf.js (`/assets/pdfjs-…`) and gpt-tokenizer's o200k tables (`/assets/o200k-…`)
 * are neither fetched nor precached. Then, as the control that the watch sees them, a file indexed
 * into a vector store and a PDF sent as input fetch exactly those chunks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf, THREE_PAGES } from '../helpers/pdf';
import { uploadToStore } from './file-search.page';
import { launchChromium, startPreview, waitForReady } from './harness';

/** The lazy chunks of the hosted tools, by their names in the build. */
const HOSTED_CHUNK = /\/assets\/(pdfjs|o200k)-[^/]*\.js$/;

let close: () => Promise<void>;
let page: import('playwright-core').Page;
const requested: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  const { baseUrl, server } = await startPreview();
  const browser = await launchChromium();
  close = async () => {
    await browser.close().catch(() => {});
    await server.close();
  };
  const context = await browser.newContext({ baseURL: baseUrl });
  // Watched before the first navigation: the page's, its dedicated workers' and (where Chromium
  // reports them) its service worker's requests.
  context.on('request', (r) => requested.push(r.url()));
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto('/');
  await waitForReady(page);
});
afterAll(() => close?.());

/** Every cached URL of a hosted chunk (precache and runtime caches). */
const cachedHostedChunks = (pattern: string) =>
  page.evaluate(async (source) => {
    const re = new RegExp(source);
    const urls: string[] = [];
    for (const name of await caches.keys())
      for (const req of await (await caches.open(name)).keys()) if (re.test(req.url)) urls.push(req.url);
    return urls;
  }, pattern);

describe('a page that uses no hosted tool', () => {
  it('fetches and caches neither pdf.js nor the o200k tables while chatting with scripted', async () => {
    await page.getByTestId('runtime-status').filter({ hasText: 'ready' }).waitFor({ timeout: 20_000 });
    await page.getByTestId('chat-input').fill('hello there');
    await page.getByTestId('send').click();
    await page.locator('.msg--streaming').waitFor({ state: 'detached', timeout: 20_000 });
    expect(await page.locator('.msg--assistant .msg__text').last().textContent()).toBe(
      'You said: hello there',
    );
    // The app's own JavaScript was seen, so the watch works; none of it is a hosted chunk.
    expect(requested.some((u) => /\/assets\/index-[^/]*\.js$/.test(u))).toBe(true);
    expect(requested.filter((u) => HOSTED_CHUNK.test(u))).toEqual([]);
    expect(await cachedHostedChunks(HOSTED_CHUNK.source)).toEqual([]);
  });

  it('fetches o200k with the first indexed file and pdf.js with the first PDF (the control)', async () => {
    const uploaded = await page.evaluate(uploadToStore, [{ name: 'a.txt', text: 'The sky is blue.' }]);
    expect(uploaded.batchStatus).toBe('completed');
    const status = await page.evaluate(
      async (pdf) => {
        const res = await fetch('/v1/responses/input_tokens', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'scripted',
            input: [
              {
                role: 'user',
                content: [
                  {
                    type: 'input_file',
                    filename: 'three.pdf',
                    file_data: `data:application/pdf;base64,${pdf}`,
                  },
                ],
              },
            ],
          }),
        });
        return res.status;
      },
      Buffer.from(makePdf(THREE_PAGES)).toString('base64'),
    );
    expect(status).toBe(200);
    const hosted = requested
      .filter((u) => HOSTED_CHUNK.test(u))
      .map((u) => /\/assets\/([a-z0-9]+)-/.exec(u)?.[1]);
    expect(new Set(hosted)).toEqual(new Set(['o200k', 'pdfjs']));
  });

  it('left no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
