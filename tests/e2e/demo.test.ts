/**
 * The demo page (`/`, src/demo) driven as a visitor would: through its controls, found by
 * `data-testid`. It proves the page's own glue: readiness, streaming into the chat, memory through
 * `previous_response_id`, Stop, error lines, and that model output is text, never HTML.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppSession, openApp } from './harness';

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp();
});
afterAll(() => app?.close());

/** Types `text` into the composer and clicks Send, once Send is enabled (it is off while busy). */
async function send(text: string): Promise<void> {
  const { page } = app;
  await page.getByTestId('chat-input').fill(text);
  await expectEnabled('send');
  await page.getByTestId('send').click();
}

async function expectEnabled(testId: string): Promise<void> {
  await expect.poll(() => app.page.getByTestId(testId).isEnabled(), { timeout: 20_000 }).toBe(true);
}

/** The text of the newest assistant reply, once it has finished streaming. */
async function lastReply(): Promise<string> {
  const { page } = app;
  await page.locator('.msg--streaming').waitFor({ state: 'detached', timeout: 20_000 });
  return (await page.locator('.msg--assistant .msg__text').last().textContent()) ?? '';
}

describe('demo page', () => {
  it('shows the runtime as ready, the WebGPU status and `scripted` as the default model', async () => {
    const { page } = app;
    await page.getByTestId('runtime-status').filter({ hasText: 'ready' }).waitFor({ timeout: 20_000 });
    await expect
      .poll(() => page.getByTestId('gpu-status').textContent())
      .toMatch(/^WebGPU: (available|unavailable)/);
    // One readable line: no punctuation piled up where the probe's reason ends (it read "adapter.; only").
    expect(await page.getByTestId('gpu-status').textContent()).not.toMatch(/[.;:,]\s*[.;:,]/);
    expect(await page.getByTestId('model-select').inputValue()).toBe('scripted');
    expect(await page.evaluate(() => typeof window.OpenAI)).toBe('function');
  });

  it('streams a scripted reply into the chat, and the storage panel lists it without a Refresh', async () => {
    const rows = app.page.getByTestId('storage-list').locator('li');
    const before = await rows.count();
    await send('hello there');
    expect(await lastReply()).toBe('You said: hello there');
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(before + 1);
    // Newest first: the reply just streamed, stored completed.
    // Dated, in plain words (issue 46): "<date> · answered · scripted".
    expect(await rows.first().locator('.storage-detail').textContent()).toMatch(
      /20\d\d.* · answered · scripted$/,
    );
  });

  it('remembers the conversation, and New chat forgets it', async () => {
    await send('!transcript');
    expect(await lastReply()).toContain('hello there');

    await app.page.getByTestId('new-chat').click();
    await send('!transcript');
    const fresh = await lastReply();
    expect(fresh).toContain('!transcript');
    expect(fresh).not.toContain('hello there');
  });

  it('renders model output as text, never as HTML', async () => {
    const markup = '<img src=x onerror="window.__demoXss=1"><b>bold</b>';
    await send(markup);
    expect(await lastReply()).toBe(`You said: ${markup}`);
    expect(await app.page.getByTestId('messages').locator('img, b').count()).toBe(0);
    expect(
      await app.page.evaluate(() => (window as unknown as { __demoXss?: number }).__demoXss),
    ).toBeUndefined();
  });

  it('stops a slow reply with Stop', async () => {
    const { page } = app;
    await send('!delay 300 one two three four five six seven eight nine ten');
    await page.locator('.msg--streaming .msg__text').filter({ hasText: 'one' }).waitFor({ timeout: 20_000 });
    await page.getByTestId('stop').click();
    await page.locator('.msg--assistant .msg__meta').last().filter({ hasText: 'stopped' }).waitFor();
    expect(await lastReply()).not.toContain('ten');
    await expectEnabled('send');
  });

  it('shows a failed generation as an error line', async () => {
    await send('!fail');
    const error = app.page.getByTestId('chat-error').last();
    await error.waitFor({ timeout: 20_000 });
    expect(await error.textContent()).toMatch(/fail|error/i);
    await expectEnabled('send');
  });

  it('shows the chat again after a reload, and goes on from it (issue 46)', async () => {
    const { page } = app;
    await page.getByTestId('new-chat').click();
    await send('before the reload');
    expect(await lastReply()).toBe('You said: before the reload');

    await page.reload();
    await page.getByTestId('runtime-status').filter({ hasText: 'ready' }).waitFor({ timeout: 20_000 });
    // The chain read back from the store: the user's message and the reply, in order, once each.
    await expect
      .poll(() => page.locator('.msg--user').allTextContents(), { timeout: 20_000 })
      .toEqual(['Youbefore the reload']);
    expect(await page.locator('.msg--assistant .msg__text').allTextContents()).toEqual([
      'You said: before the reload',
    ]);
    // The next turn continues the restored chain (previous_response_id): the model sees it.
    await send('!transcript');
    expect(await lastReply()).toContain('before the reload');
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
