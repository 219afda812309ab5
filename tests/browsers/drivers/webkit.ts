/**
 * WebKitGTK (Safari's engine) through WebKitWebDriver and MiniBrowser, on an Xvfb display this
 * session starts. Two settings: Debian's WebKitGTK as shipped, and "Safari-like", with the features
 * Safari turns on and WebKitGTK leaves off (the Storage API: `navigator.storage`, OPFS) and
 * JavaScriptCore's SharedArrayBuffer. A WebDriver session stores like Safari's Private Browsing:
 * IndexedDB in memory, no persistent storage.
 *
 * @example
 * const browser = await launchWebKit({ safariLike: true });
 * const tab = await browser.newTab();
 */
import { freePort } from '../../e2e/harness';
import { spawnGroup, startXvfb, stopGroup, waitForHttp } from './processes';
import { type BrowserSession, bounded, DEFAULT_EVAL_MS, type Tab } from './types';
import { WebDriverSession } from './webdriver-client';

export const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/** Which WebKitGTK the session runs. */
export interface WebKitSetting {
  /** Safari's storage features and SharedArrayBuffer on; off: WebKitGTK as Debian ships it. */
  safariLike: boolean;
}

/**
 * MiniBrowser's features Safari ships on (`MiniBrowser --features=help` lists them): the Storage
 * API and its estimate, and the File System API (OPFS, `navigator.storage.getDirectory()`).
 */
const SAFARI_FEATURES = '+StorageAPI,+StorageAPIEstimate,+FileSystem,+FileSystemWritableStream';

/**
 * JavaScriptCore reads its options from `JSC_<name>` in the environment; MiniBrowser's web process
 * inherits WebKitWebDriver's environment, so the option reaches the page's engine.
 */
const SAFARI_ENV = { JSC_useSharedArrayBuffer: '1' };

/** The W3C capabilities WebKitWebDriver needs to start MiniBrowser in automation mode. */
export function webkitCapabilities(setting: WebKitSetting) {
  const args = ['--automation', ...(setting.safariLike ? [`--features=${SAFARI_FEATURES}`] : [])];
  return {
    browserName: 'MiniBrowser',
    'webkitgtk:browserOptions': { binary: MINIBROWSER, args },
  };
}

/** Starts Xvfb, WebKitWebDriver on a free port and a session; all of it stops with `close()`. */
export async function launchWebKit(setting: WebKitSetting): Promise<BrowserSession> {
  const xvfb = await startXvfb();
  let driver: ReturnType<typeof spawnGroup> | undefined;
  let wd: WebDriverSession | undefined;
  const stopAll = async () => {
    await wd?.delete().catch(() => {});
    await stopGroup(driver);
    await stopGroup(xvfb.process);
  };
  try {
    const port = await freePort();
    driver = spawnGroup('WebKitWebDriver', [`--port=${port}`, '--host=127.0.0.1'], {
      DISPLAY: xvfb.display,
      ...(setting.safariLike ? SAFARI_ENV : {}),
    });
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/status`, 15_000, driver);
    wd = await WebDriverSession.create(url, webkitCapabilities(setting));
    await wd.command('POST', '/timeouts', { pageLoad: 60_000 });
  } catch (err) {
    const output = driver?.output() ?? '';
    await stopAll();
    throw new Error(`WebKitWebDriver did not start a session: ${err}\n${output}`);
  }
  const session = wd;
  const version = `WebKitGTK ${session.capabilities.browserVersion}${setting.safariLike ? ' (Safari-like)' : ''}`;
  let first = true;
  return {
    version,
    async newTab() {
      // The session opens with one window: the first tab is that one.
      let handle = session.current;
      if (!first) {
        const made = (await session.command('POST', '/window/new', { type: 'tab' })) as { handle: string };
        handle = made.handle;
      }
      first = false;
      return webDriverTab(session, handle);
    },
    close: stopAll,
  };
}

/** A tab of a WebDriver session: each command first makes it the driver's current window. */
function webDriverTab(session: WebDriverSession, handle: string): Tab {
  return {
    // Classic WebDriver has no console events.
    log: [],
    async goto(url) {
      await session.focus(handle);
      await session.command('POST', '/url', { url }, 60_000);
    },
    async reload() {
      await session.focus(handle);
      await session.command('POST', '/refresh', {}, 60_000);
    },
    async evaluate(fn, arg, timeoutMs = DEFAULT_EVAL_MS) {
      await session.focus(handle);
      const value = await bounded(
        session.execute(fn.toString(), arg, timeoutMs),
        timeoutMs + 30_000,
        'a page script (WebKit)',
      );
      return value as never;
    },
    async close() {
      await session.focus(handle);
      const left = (await session.command('DELETE', '/window')) as string[];
      // The driver has no current window now: point it at one that is left.
      if (left[0]) {
        session.current = '';
        await session.focus(left[0]);
      }
    },
  };
}
