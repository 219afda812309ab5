/**
 * The demo XSS tests' one check: after markup went through a tool, the page has no new element of
 * the watched tags, no element with an `on*` handler, nothing but chat markup added to the log, and
 * no script ran (`window.__xss` unset once a broken image would have fired its onerror).
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { handlerElements, tagCounts, xssFlag } from './demo-tools.page';

const MESSAGES = '[data-testid="messages"]';

export interface DomCounts {
  all: Record<string, number>;
  chat: Record<string, number>;
}

/** The tag counts of the whole page and of the chat log, before a tool's turn. */
export async function domCounts(page: Page): Promise<DomCounts> {
  return { all: await page.evaluate(tagCounts, null), chat: await page.evaluate(tagCounts, MESSAGES) };
}

/** Asserts that the turn since `before` added no markup: see the file's comment. */
export async function expectNothingInjected(
  page: Page,
  before: DomCounts,
  opts: { watched: readonly string[]; chatTags: readonly string[] },
): Promise<void> {
  const after = await domCounts(page);
  for (const tag of opts.watched) expect(after.all[tag] ?? 0).toBe(before.all[tag] ?? 0);
  expect(await page.evaluate(handlerElements)).toEqual([]);
  const added = Object.keys(after.chat).filter((t) => (after.chat[t] ?? 0) > (before.chat[t] ?? 0));
  expect(added.filter((t) => !opts.chatTags.includes(t))).toEqual([]);
  await page.waitForTimeout(200); // an onerror would fire once a broken image failed to load
  expect(await page.evaluate(xssFlag)).toBeUndefined();
}
