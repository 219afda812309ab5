/**
 * Issue 46: the demo fits its viewport from 360 px up. At 390 px the page was 434 px wide, the
 * Tools panel's MCP label and checkbox were cut off and the recommended card's "Build" label was
 * clipped. The demo is opened at 360, 390 and 1280 px, screenshotted (under `.tmp/screenshots/`,
 * never in git) and fails when the document is wider than the viewport, when an element sticks out
 * past its right edge, or when a label's text is cut inside its own box.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppSession, openApp } from './harness';

const shots = resolve(import.meta.dirname, '../../.tmp/screenshots');

let app: AppSession;
beforeAll(async () => {
  app = await openApp();
  mkdirSync(shots, { recursive: true });
  // The catalog's cards render once the model list is in: the widest part of the page.
  await app.page.locator('.catalog__build-label').first().waitFor({ state: 'attached', timeout: 30_000 });
}, 60_000);
afterAll(() => app?.close());

/** What sticks out: the document's width, and up to 10 elements past the right edge or cut inside. */
function overflow(): { scrollWidth: number; innerWidth: number; outside: string[]; clipped: string[] } {
  const name = (e: Element) =>
    `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${[...e.classList].join('.')} "${(e.textContent ?? '').trim().slice(0, 30)}"`;
  const outside: string[] = [];
  const clipped: string[] = [];
  // Bounded: the demo has a few hundred elements; the lists keep ten each.
  for (const e of document.querySelectorAll('body *')) {
    const box = e.getBoundingClientRect();
    // Empty boxes and visually hidden labels (1 px, for screen readers) are not seen.
    if (box.width <= 1 || box.height <= 1) continue;
    if (box.right > innerWidth + 0.5 && outside.length < 10) outside.push(name(e));
    const leaf = e.children.length === 0 && /^(LABEL|BUTTON|SPAN|SUMMARY|H2|H3)$/.test(e.tagName);
    if (leaf && e.scrollWidth > e.clientWidth + 1 && clipped.length < 10) clipped.push(name(e));
  }
  return { scrollWidth: document.documentElement.scrollWidth, innerWidth, outside, clipped };
}

describe('the demo at phone and desktop widths', () => {
  for (const width of [360, 390, 1280])
    it(`fits ${width} px`, async () => {
      const { page } = app;
      await page.setViewportSize({ width, height: 900 });
      // Open every disclosure (the Tools panel's MCP fields among them) so nothing hides.
      await page.evaluate(() => {
        for (const d of document.querySelectorAll('details')) d.open = true;
      });
      await page.screenshot({ path: resolve(shots, `demo-${width}.png`), fullPage: true });
      const seen = await page.evaluate(overflow);
      expect(seen.outside).toEqual([]);
      expect(seen.clipped).toEqual([]);
      expect(seen.scrollWidth).toBeLessThanOrEqual(seen.innerWidth);
    });
});
