/**
 * Child processes a browser session needs (Xvfb, WebKitWebDriver): started in their own process
 * group so that stopping one also stops what it started (MiniBrowser and its web processes), and
 * every start bounded.
 *
 * @example
 * const x = await startXvfb();
 * const driver = spawnGroup('WebKitWebDriver', ['--port=4444'], { DISPLAY: x.display });
 * await stopGroup(driver); await stopGroup(x.process);
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { bounded } from './types';

/**
 * Spawns `command` as the leader of a new process group, its output kept (last 4 kB) for errors.
 * `env` is added to this process's environment.
 */
export function spawnGroup(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): ChildProcess & { output: () => string } {
  const child = spawn(command, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4096);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return Object.assign(child, { output: () => output });
}

/** Stops a group started by {@link spawnGroup}: SIGTERM, then SIGKILL if it is still there after 5 s. */
export async function stopGroup(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const pid = child.pid;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      // Already gone.
    }
  };
  signal('SIGTERM');
  await bounded(exited, 5_000, `${child.spawnfile} to exit`).catch(() => signal('SIGKILL'));
}

/**
 * Starts Xvfb on a display nobody uses (`-displayfd` lets the server pick it and tell us), so
 * runs on one machine never collide on a display number.
 */
export async function startXvfb(): Promise<{ display: string; process: ChildProcess }> {
  const child = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-2048);
  });
  const display = new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdio[3]?.on('data', (c: Buffer) => {
      text += c.toString();
      if (text.includes('\n')) resolve(`:${text.trim()}`);
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`Xvfb exited (${code}): ${stderr}`)));
  });
  try {
    return { display: await bounded(display, 15_000, 'Xvfb to report its display'), process: child };
  } catch (err) {
    await stopGroup(child);
    throw err;
  }
}

/** Polls `url` until it answers 2xx (a server that has started listening); bounded. */
export async function waitForHttp(url: string, ms: number, child?: { output: () => string }): Promise<void> {
  const end = Date.now() + ms;
  let last = 'nothing yet';
  while (Date.now() < end) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer within ${ms} ms (${last})\n${child?.output() ?? ''}`);
}
