/**
 * The demo's "Connect a server" form against a real llama-server: the server's model joins the
 * picker marked remote, and the chat answers with it through the service worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LLAMA_BUILD_MS, LLAMA_MODEL_ID, type LlamaServer, startLlamaServer } from '../helpers/llama-server';
import { type AppSession, openApp } from './harness';

const KEY = 'sk-demo-form-4e4e';
let llama: LlamaServer;
let app: AppSession & { pageErrors: string[] };

beforeAll(async () => {
  // The demo sends no max_output_tokens for a model it does not know: the server caps the answer.
  llama = await startLlamaServer({ apiKey: KEY, predict: 24 });
  app = await openApp({ testPages: true });
}, LLAMA_BUILD_MS);

afterAll(async () => {
  await app?.close();
  await llama?.stop();
});

describe('the demo connects a server', () => {
  it('lists the server model as remote after Connect, and clears the key field', async () => {
    const { page } = app;
    await page.getByTestId('runtime-status').filter({ hasText: 'ready' }).waitFor({ timeout: 20_000 });
    await page.getByLabel('Server URL', { exact: true }).fill(llama.baseURL);
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByTestId('remote-status').filter({ hasText: 'Connected' }).waitFor({ timeout: 20_000 });
    const option = page.locator(`optgroup[label^="Remote"] option[value="${LLAMA_MODEL_ID}"]`);
    await option.waitFor({ state: 'attached', timeout: 10_000 });
    expect(await option.textContent()).toBe(`${LLAMA_MODEL_ID} (remote)`);
    expect(await page.getByLabel('API key').inputValue()).toBe('');
  });

  it('chats with the remote model', async () => {
    const { page } = app;
    await page.getByTestId('model-select').selectOption(LLAMA_MODEL_ID);
    await page.getByTestId('load-status').filter({ hasText: 'is loaded' }).waitFor({ timeout: 20_000 });
    await page.getByTestId('chat-input').fill('Hello, remote model');
    await page.getByTestId('send').click();
    await page.locator('.msg--streaming').waitFor({ state: 'detached', timeout: 60_000 });
    const reply = (await page.locator('.msg--assistant .msg__text').last().textContent()) ?? '';
    expect(reply.length).toBeGreaterThan(0);
    expect(reply).not.toContain('You said');
  });

  it('shows a wrong key as the server refusing it, without the key', async () => {
    const { page } = app;
    await page.getByLabel('Server URL', { exact: true }).fill(llama.baseURL);
    await page.getByLabel('API key').fill('sk-wrong-demo-key');
    await page.getByRole('button', { name: 'Connect' }).click();
    const status = page.getByTestId('remote-status').filter({ hasText: 'Could not connect' });
    await status.waitFor({ timeout: 20_000 });
    expect(await status.textContent()).toContain('refused the API key');
    expect(await status.textContent()).not.toContain('sk-wrong-demo-key');
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
