/**
 * Issue 26, security point 1, for the remote `mcp` tool on the demo page (`/`): nothing an MCP
 * server returns is HTML. A real MCP server (another origin, with CORS) lists a tool whose name and
 * description are markup and that answers markup; `echo` is called with markup arguments. The demo
 * shows the `mcp_list_tools`, each `mcp_call` (name, arguments, output) and the answer as text: no
 * element the markup names appears, no handler runs. Then the approval flow through the demo's own
 * buttons: Approve sends the `mcp_approval_response` and the call's output shows; Decline runs nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offeredName } from '../../src/core/hosted/mcp-policy';
import { type RunningMcpServer, startMcpServer } from '../helpers/mcp-server';
import { domCounts, expectNothingInjected } from './demo-dom-checks';
import { tagCounts, xssFlag } from './demo-tools.page';
import { type AppSession, openApp } from './harness';

const TOOL_NAME = '<img src=x onerror="window.__xss=1">';
const TOOL_DESCRIPTION = '<script>window.__xss=2</script><b>bold</b>';
const TOOL_OUTPUT = '<img src=x onerror="window.__xss=3"><script>window.__xss=4</script>';
const ECHO_TEXT = '<img src=x onerror="window.__xss=5"><script>window.__xss=6</script>';
/** What a turn may add to the chat: the chat's own markup for bubbles, tool blocks and buttons. */
const CHAT_TAGS = ['LI', 'SPAN', 'DIV', 'UL', 'PRE', 'BUTTON'];

let app: AppSession & { pageErrors: string[] };
let srv: RunningMcpServer;
beforeAll(async () => {
  [app, srv] = await Promise.all([
    openApp(),
    startMcpServer({ extraTools: [{ name: TOOL_NAME, description: TOOL_DESCRIPTION, text: TOOL_OUTPUT }] }),
  ]);
  await app.page.getByTestId('runtime-status').filter({ hasText: 'ready' }).waitFor({ timeout: 20_000 });
  await app.page.getByTestId('mcp-url').fill(srv.url);
});
afterAll(async () => {
  await Promise.all([app?.close(), srv?.close()]);
});

/** Sends `text` from the composer and waits (bounded) until the reply stops streaming. */
async function sendAndWait(text: string): Promise<void> {
  await app.page.getByTestId('chat-input').fill(text);
  await app.page.getByTestId('send').click();
  await app.page.locator('.msg--streaming').waitFor({ state: 'detached', timeout: 30_000 });
}

describe('the demo shows MCP output as text', () => {
  it('renders markup tool names, descriptions, arguments and output through textContent only', async () => {
    const { page } = app;
    await page.getByTestId('mcp-approval').uncheck();
    const before = await domCounts(page);
    // The model calls the markup tool by the valid name intab offers it under.
    const offered = offeredName('demo', TOOL_NAME, new Set());
    const echoArgs = JSON.stringify({ text: ECHO_TEXT });
    await sendAndWait(`!mcp demo echo ${echoArgs} !mcp demo ${offered} {}`);

    const listed = await page.getByTestId('mcp-list-tools').locator('li').allTextContents();
    expect(listed).toContain(`${TOOL_NAME}: ${TOOL_DESCRIPTION}`);
    const calls = page.getByTestId('mcp-call');
    expect(await calls.count()).toBe(2);
    expect(await calls.nth(0).locator('.msg__tool-head').textContent()).toBe(
      'Called echo on demo (completed)',
    );
    expect(await calls.nth(0).getByTestId('mcp-call-args').textContent()).toBe(echoArgs);
    expect(await calls.nth(0).getByTestId('mcp-call-result').textContent()).toBe(`echo: ${ECHO_TEXT}`);
    expect(await calls.nth(1).locator('.msg__tool-head').textContent()).toBe(
      `Called ${TOOL_NAME} on demo (completed)`,
    );
    expect(await calls.nth(1).getByTestId('mcp-call-result').textContent()).toBe(TOOL_OUTPUT);
    // The answer quotes the last tool result: as text too.
    const reply = page.locator('.msg--assistant').last().locator('.msg__text');
    expect(await reply.textContent()).toContain(TOOL_OUTPUT);

    await expectNothingInjected(page, before, { watched: ['IMG', 'SCRIPT', 'B'], chatTags: CHAT_TAGS });
  });

  it('Approve sends the approval response and the call output appears; markup arguments stay text', async () => {
    const { page } = app;
    await page.getByTestId('mcp-approval').check();
    const calls = page.getByTestId('mcp-call');
    const callsBefore = await calls.count();
    const serverCalls = srv.counts.call;
    const before = await page.evaluate(tagCounts, null);
    const text = 'approved <b>bold</b><img src=x onerror="window.__xss=7">';
    await sendAndWait(`!mcp demo echo ${JSON.stringify({ text })}`);

    const request = page.getByTestId('mcp-approval').last();
    expect(await request.textContent()).toContain(`demo asks to run echo with:${JSON.stringify({ text })}`);
    expect(await calls.count()).toBe(callsBefore);
    expect(srv.counts.call).toBe(serverCalls);
    await request.getByTestId('mcp-approve').click();
    await calls.nth(callsBefore).waitFor({ timeout: 30_000 });
    await page.locator('.msg--streaming').waitFor({ state: 'detached', timeout: 30_000 });
    expect(await calls.nth(callsBefore).getByTestId('mcp-call-result').textContent()).toBe(`echo: ${text}`);
    expect(await request.getByTestId('mcp-approve').isDisabled()).toBe(true);
    expect(srv.counts.call).toBe(serverCalls + 1);
    // The turn shows what the user chose, as the user's line.
    expect(await page.locator('.msg--user').last().textContent()).toContain('Approved: echo on demo');

    const after = await page.evaluate(tagCounts, null);
    for (const tag of ['IMG', 'SCRIPT', 'B']) expect(after[tag] ?? 0).toBe(before[tag] ?? 0);
    await page.waitForTimeout(200);
    expect(await page.evaluate(xssFlag)).toBeUndefined();
  });

  it('Decline sends a refusal: the server is not called and the chat goes on', async () => {
    const { page } = app;
    const calls = page.getByTestId('mcp-call');
    const callsBefore = await calls.count();
    const serverCalls = srv.counts.call;
    await sendAndWait('!mcp demo echo {"text":"no"}');
    const request = page.getByTestId('mcp-approval').last();
    await request.getByTestId('mcp-decline').click();
    await page
      .locator('.msg--user')
      .last()
      .filter({ hasText: 'Declined: echo on demo' })
      .waitFor({ timeout: 5_000 });
    await page.locator('.msg--streaming').waitFor({ state: 'detached', timeout: 30_000 });
    expect(await page.getByTestId('chat-error').count()).toBe(0);
    expect(await calls.count()).toBe(callsBefore);
    expect(srv.counts.call).toBe(serverCalls);
    expect(await request.getByTestId('mcp-decline').isDisabled()).toBe(true);
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
