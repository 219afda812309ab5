/**
 * The one interface the browser matrix is written against, so each row is written once and runs in
 * Chromium (playwright-core), Firefox ESR (puppeteer-core over WebDriver BiDi) and WebKitGTK
 * (WebKitWebDriver). A page function crosses the wire as its source text, so it must be
 * self-contained: no closure over Node values, only its one JSON argument.
 *
 * @example
 * const tab = await browser.newTab();
 * await tab.goto(`${baseUrl}/`);
 * const n = await tab.evaluate((a: { x: number }) => a.x + 1, { x: 41 }); // 42
 */

/** A JSON value: what an argument or a result of a page function can be. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json | undefined };

/** A function run inside the page; its result must be JSON. */
export type PageFn<A, R> = (arg: A) => R | Promise<R>;

/** One tab (or window) of a browser session. */
export interface Tab {
  /** Navigates and waits for the load event. */
  goto(url: string): Promise<void>;
  /** Reloads and waits for the load event. */
  reload(): Promise<void>;
  /**
   * Runs `fn(arg)` in the page and answers its (awaited) result; a throw in the page rejects here
   * with the page's message. Rejects after `timeoutMs` (default 120 s) if the page never settles.
   */
  evaluate<A extends Json, R>(fn: PageFn<A, R>, arg: A, timeoutMs?: number): Promise<R>;
  /** Closes this tab only. */
  close(): Promise<void>;
  /** The page's console and uncaught errors so far, where the driver sees them (not WebKit's). */
  readonly log: string[];
}

/** A browser session: one storage partition shared by all of its tabs. */
export interface BrowserSession {
  /** e.g. `chromium 156.0…`, for the log. */
  readonly version: string;
  /** Opens a new tab (a new window where the browser has no tabs) at about:blank. */
  newTab(): Promise<Tab>;
  /** Ends the session and every process it started. Never throws. */
  close(): Promise<void>;
}

/** How long a page function may run when its caller names no bound. */
export const DEFAULT_EVAL_MS = 120_000;

/**
 * Rejects with a clear error if `work` has not settled within `ms`: every wait on a browser is bounded.
 *
 * @example
 * await bounded(page.goto(url), 30_000, `loading ${url}`);
 */
export async function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
