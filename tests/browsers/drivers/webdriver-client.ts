/**
 * A small W3C WebDriver client (HTTP + JSON), the part the matrix needs: a session, navigation,
 * scripts, windows. Small enough to own: WebKitWebDriver speaks plain W3C WebDriver, and an npm
 * client (selenium-webdriver, webdriverio) would bring a driver manager that tries to download
 * browsers.
 *
 * @example
 * const wd = await WebDriverSession.create('http://127.0.0.1:4444', { browserName: 'MiniBrowser' });
 * await wd.command('POST', '/url', { url: 'http://127.0.0.1:4173/' });
 * await wd.delete();
 */
import { bounded, type Json } from './types';

/** A WebDriver error answer, with the W3C error code (`script timeout`, `no such window`…). */
export class WebDriverError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`WebDriver ${code}: ${message}`);
  }
}

/** How long one HTTP command may take beyond its own bound (a driver that stopped answering). */
const SLACK_MS = 15_000;

/** One WebDriver session. Commands are sent one at a time, as the protocol expects. */
export class WebDriverSession {
  #scriptTimeout = -1;
  /** The window the driver sends commands to now. */
  current: string;

  private constructor(
    readonly base: string,
    readonly capabilities: Record<string, Json>,
    handle: string,
  ) {
    this.current = handle;
  }

  /** Starts a session with `alwaysMatch` capabilities; bounded (a browser that never starts). */
  static async create(
    driverUrl: string,
    alwaysMatch: Record<string, Json>,
    timeoutMs = 60_000,
  ): Promise<WebDriverSession> {
    const value = (await send(
      `${driverUrl}/session`,
      'POST',
      { capabilities: { alwaysMatch } },
      timeoutMs,
    )) as { sessionId: string; capabilities: Record<string, Json> };
    const base = `${driverUrl}/session/${value.sessionId}`;
    const handle = (await send(`${base}/window`, 'GET', undefined, timeoutMs)) as string;
    return new WebDriverSession(base, value.capabilities, handle);
  }

  /** Sends `method path` (relative to the session) and answers the reply's `value`. */
  command(method: 'GET' | 'POST' | 'DELETE', path: string, body?: Json, timeoutMs = 60_000): Promise<Json> {
    return send(`${this.base}${path}`, method, body, timeoutMs);
  }

  /** Makes `handle` the window commands go to (a no-op when it already is). */
  async focus(handle: string): Promise<void> {
    if (this.current === handle) return;
    await this.command('POST', '/window', { handle });
    this.current = handle;
  }

  /**
   * Runs `source` (a function's text) on `arg` in the current window and answers its awaited
   * result. The driver's own script timeout is set to `timeoutMs`, so a page that never settles
   * ends this command (and frees the session for the next) instead of blocking it.
   */
  async execute(source: string, arg: Json, timeoutMs: number): Promise<Json> {
    if (this.#scriptTimeout !== timeoutMs) {
      await this.command('POST', '/timeouts', { script: timeoutMs });
      this.#scriptTimeout = timeoutMs;
    }
    // The page's error crosses back as data (not `error`, which would read as a driver error): a
    // WebDriver `javascript error` would lose its message.
    const script = `const done = arguments[arguments.length - 1];
Promise.resolve().then(() => (${source})(arguments[0])).then(
  (value) => done({ ok: true, value: value === undefined ? null : value }),
  (err) => done({ ok: false, thrown: err instanceof Error ? err.name + ': ' + err.message : String(err) }),
);`;
    const out = (await this.command(
      'POST',
      '/execute/async',
      { script, args: [arg] },
      timeoutMs + SLACK_MS,
    )) as { ok: boolean; value?: Json; thrown?: string };
    if (!out.ok) throw new Error(out.thrown);
    return out.value ?? null;
  }

  /** Ends the session (the driver closes the browser). */
  async delete(): Promise<void> {
    await send(this.base, 'DELETE', undefined, 30_000);
  }
}

/** One HTTP round trip to the driver; a W3C error body becomes a {@link WebDriverError}. */
async function send(url: string, method: string, body: Json | undefined, timeoutMs: number): Promise<Json> {
  const what = `WebDriver ${method} ${new URL(url).pathname}`;
  const res = await bounded(
    fetch(url, {
      method,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      // W3C: a POST always carries a JSON body, `{}` when it has no parameters.
      body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
      signal: AbortSignal.timeout(timeoutMs + SLACK_MS),
    }),
    timeoutMs + SLACK_MS,
    what,
  );
  const text = await res.text();
  let json: { value?: Json & { error?: string; message?: string } };
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${what}: HTTP ${res.status}, not JSON: ${text.slice(0, 200)}`);
  }
  const value = json.value ?? null;
  if (
    !res.ok ||
    (value && typeof value === 'object' && 'error' in value && typeof value.error === 'string')
  ) {
    const v = value as { error?: string; message?: string };
    throw new WebDriverError(v.error ?? `HTTP ${res.status}`, v.message ?? text.slice(0, 200));
  }
  return value;
}
