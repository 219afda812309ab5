/**
 * Issue 46: on the demo page, file_search runs only on the store the visitor picks in "Files &
 * vector stores". Before, once any vector store existed, every `scripted` message searched it
 * ("hello there" searched `solar.txt`). A store made from the console is listed but not searched;
 * picked, it is; a file uploaded through the panel lands in a store that is then picked, and the
 * panel's own search finds it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadToStore } from './file-search.page';
import { type AppSession, openApp } from './harness';

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp();
  await app.page.getByTestId('runtime-status').filter({ hasText: 'ready' }).waitFor({ timeout: 20_000 });
});
afterAll(() => app?.close());

/** Sends `text` and resolves with how many file_search calls the reply shows. */
async function searchesIn(text: string): Promise<number> {
  const { page } = app;
  await page.getByTestId('chat-input').fill(text);
  await expect.poll(() => page.getByTestId('send').isEnabled(), { timeout: 20_000 }).toBe(true);
  await page.getByTestId('send').click();
  await page.locator('.msg--streaming').waitFor({ state: 'detached', timeout: 20_000 });
  return page.locator('.msg--assistant').last().getByTestId('file-search-call').count();
}

describe('file_search on the demo', () => {
  it('searches no store that exists but was not picked', async () => {
    const { page } = app;
    const uploaded = await page.evaluate(uploadToStore, [{ name: 'solar.txt', text: 'The sun is a star.' }]);
    expect(uploaded.batchStatus).toBe('completed');
    await page.getByTestId('files-refresh').click();
    await expect.poll(() => page.getByTestId('store-list').locator('li').count()).toBe(1);
    expect(await searchesIn('hello there')).toBe(0);
    expect(await page.locator('.msg--assistant .msg__text').last().textContent()).toContain('hello there');

    await page.getByTestId('chat-store').selectOption(uploaded.vectorStoreId);
    expect(await searchesIn('hello there')).toBe(1);
    await page.getByTestId('chat-store').selectOption('');
    expect(await searchesIn('hello again')).toBe(0);
  });

  it('uploads through the panel into a picked store, lists it with a date and searches it', async () => {
    const { page } = app;
    await page.getByTestId('files-upload').setInputFiles({
      name: 'moon.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('The moon orbits the earth.'),
    });
    await page.getByTestId('files-status').filter({ hasText: 'indexed' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getByTestId('store-list').locator('li').count()).toBe(2);
    expect(await page.getByTestId('file-list').textContent()).toContain('moon.txt');
    expect(await page.getByTestId('file-list').textContent()).toMatch(/20\d\d/);
    expect(await page.getByTestId('chat-store').inputValue()).not.toBe('');
    await page.getByTestId('store-query').fill('moon');
    await page.getByTestId('store-search').click();
    await expect.poll(() => page.getByTestId('store-results').textContent()).toContain('moon.txt');
    expect(await searchesIn('where is the moon')).toBe(1);

    // Deleting the picked store turns file_search off again.
    const picked = await page.getByTestId('chat-store').inputValue();
    await page.locator(`[data-testid="store-list"] li[data-id="${picked}"] button`).click();
    await expect.poll(() => page.getByTestId('store-list').locator('li').count()).toBe(1);
    expect(await page.getByTestId('chat-store').inputValue()).toBe('');
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
