/**
 * Issue 22, security point 1, on the demo page (`/`): tool output is text, never HTML. A file whose
 * name and text are markup (`<img src=x onerror=…>`) is uploaded into a vector store; a chat turn
 * then searches it (`!file_search` on `scripted`, the store picked in the Files panel), and the demo shows the `file_search_call` (its
 * queries, each result's file name and excerpt), an answer quoting the file, and the cited file's
 * name. The markup must show as text: no element it describes appears, no handler runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadToStore } from './file-search.page';
import { type AppSession, openApp } from './harness';

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp();
});
afterAll(() => app?.close());

const NAME = '<img src=x onerror=window.__fsXss=1>.txt';
const TEXT =
  'The sky is blue. <img src=x onerror="window.__fsXss=2"><b>bold</b><script>window.__fsXss=3</script>';

/** The tag names of every element in the document (or under `selector`), counted. */
const tagCounts = (selector: string | null) => {
  const root = selector ? document.querySelector(selector) : document;
  const counts: Record<string, number> = {};
  for (const node of root?.getElementsByTagName('*') ?? [])
    counts[node.tagName] = (counts[node.tagName] ?? 0) + 1;
  return counts;
};
const MESSAGES = '[data-testid="messages"]';

describe('the demo shows file_search output as text', () => {
  it('renders a markup file name and file text through textContent only', async () => {
    const { page } = app;
    await page.getByTestId('runtime-status').filter({ hasText: 'ready' }).waitFor({ timeout: 20_000 });
    const uploaded = await page.evaluate(uploadToStore, [{ name: NAME, text: TEXT }]);
    expect(uploaded.batchStatus).toBe('completed');
    expect(Object.keys(uploaded.fileIds)).toEqual([NAME]);
    // The demo searches only the store picked in its Files panel (issue 46).
    await page.getByTestId('files-refresh').click();
    await page
      .locator(`[data-testid="chat-store"] option[value="${uploaded.vectorStoreId}"]`)
      .waitFor({ state: 'attached' });
    await page.getByTestId('chat-store').selectOption(uploaded.vectorStoreId);

    const before = await page.evaluate(tagCounts, null);
    const chatBefore = await page.evaluate(tagCounts, MESSAGES);
    await page.getByTestId('chat-input').fill('!file_search blue sky');
    await page.getByTestId('send').click();
    await page.locator('.msg--streaming').waitFor({ state: 'detached', timeout: 20_000 });

    // The call, its result's name and excerpt, the answer and its source line, all as plain text.
    const call = page.getByTestId('file-search-call');
    expect(await call.textContent()).toContain('Searched files for: blue sky (completed)');
    expect(await call.locator('li').allTextContents()).toEqual([`${NAME}: ${TEXT}`]);
    const reply = page.locator('.msg--assistant').last();
    expect(await reply.locator('.msg__text').textContent()).toContain(
      '<img src=x onerror="window.__fsXss=2">',
    );
    expect(await reply.locator('.msg__meta').allTextContents()).toContain(`Sources: ${NAME}`);

    // No element the markup names exists, no handler attribute anywhere, nothing ran.
    const after = await page.evaluate(tagCounts, null);
    const chatAfter = await page.evaluate(tagCounts, MESSAGES);
    for (const tag of ['IMG', 'B', 'SCRIPT']) expect(after[tag] ?? 0).toBe(before[tag] ?? 0);
    expect(await page.locator('[onerror]').count()).toBe(0);
    // What the turn added to the chat is the chat's own markup: list items, spans, divs, the results list.
    const added = Object.keys(chatAfter).filter((t) => (chatAfter[t] ?? 0) > (chatBefore[t] ?? 0));
    expect(added.filter((t) => !['LI', 'SPAN', 'DIV', 'UL'].includes(t))).toEqual([]);
    await page.waitForTimeout(200); // an onerror would fire once the broken image failed to load
    expect(await page.evaluate(() => (window as unknown as { __fsXss?: number }).__fsXss)).toBeUndefined();
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
