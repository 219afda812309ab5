/**
 * The demo with real llama.cpp: when the tiny test GGUF has been built (the e2e global setup builds
 * it), the demo offers it as a labelled model, loads it with progress, and chats with it; and a GGUF
 * the visitor opens from disk is served by name, its replies capped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTestModel } from '../../scripts/build-test-gguf.mjs';
import { DEMO_REPLY_TOKENS } from '../../src/demo/reply-cap';
import { type AppSession, openApp } from './harness';

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp({ testPages: true });
});
afterAll(() => app?.close());

async function lastReply(): Promise<string> {
  await app.page.locator('.msg--streaming').waitFor({ state: 'detached', timeout: 60_000 });
  return (await app.page.locator('.msg--assistant .msg__text').last().textContent()) ?? '';
}

describe('the demo with llama.cpp', () => {
  it('offers the tiny random model, labelled, among the llama.cpp models', async () => {
    const { page } = app;
    await page.getByTestId('runtime-status').filter({ hasText: 'ready' }).waitFor({ timeout: 20_000 });
    const option = page.locator('optgroup[label^="llama.cpp"] option[value="tiny-random"]');
    await option.waitFor({ state: 'attached', timeout: 20_000 });
    expect(await option.textContent()).toBe('tiny random model (real llama.cpp, gibberish output)');
  });

  it('loads it with progress and answers with real tokens', async () => {
    const { page } = app;
    await page.getByTestId('model-select').selectOption('tiny-random');
    await page
      .getByTestId('load-status')
      .filter({ hasText: 'tiny-random is loaded.' })
      .waitFor({ timeout: 60_000 });
    await page.getByTestId('chat-input').fill('Hello, tiny model');
    await page.getByTestId('send').click();
    const reply = await lastReply();
    expect(reply.length).toBeGreaterThan(0);
    expect(reply).not.toContain('You said');
  });

  it('serves a GGUF file the visitor opens', async () => {
    const { page } = app;
    const { path } = await ensureTestModel('tiny');
    await page.getByTestId('gguf-input').setInputFiles(path);
    await page
      .getByTestId('load-status')
      .filter({ hasText: 'intab-tiny-random is loaded.' })
      .waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('model-select').inputValue()).toBe('intab-tiny-random');
    // A model of unknown quality cannot ramble on (issue 46): its replies are capped.
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/v1/responses'));
    await page.getByTestId('chat-input').fill('Hello, opened model');
    await page.getByTestId('send').click();
    expect((await sent).postDataJSON()).toMatchObject({
      model: 'intab-tiny-random',
      max_output_tokens: DEMO_REPLY_TOKENS,
    });
    await page.getByTestId('stop').click();
    await page.locator('.msg--streaming').waitFor({ state: 'detached', timeout: 60_000 });
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
