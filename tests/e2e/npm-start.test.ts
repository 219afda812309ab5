/**
 * `npm start` as a developer or a process manager stops it: a signal to npm ends the demo server
 * too, so the next `npm start` gets the port again (strictPort refuses a taken one).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from './harness';

const root = resolve(import.meta.dirname, '../..');

/** `npm start` on `port`, once the demo answers there; `output()` is what it printed so far. */
async function npmStart(port: number): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn('npm', ['start'], {
    cwd: root,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: whatever npm starts stays in it, so the test sees anything left behind.
    detached: true,
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const end = Date.now() + 120_000;
  while (Date.now() < end && child.exitCode === null) {
    if (await answers(port)) return { child, output: () => out };
    await sleep(250);
  }
  child.kill('SIGKILL');
  throw new Error(`npm start did not serve on port ${port}:\n${out}`);
}

async function answers(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://localhost:${port}/`)).ok;
  } catch {
    return false;
  }
}

/** Whether any process of the group `pid` leads is still running. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether nothing listens on `port` (a server of ours can bind it). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const srv = createServer();
    srv.once('error', () => ok(false));
    srv.listen(port, 'localhost', () => srv.close(() => ok(true)));
  });
}

const started: number[] = [];
afterEach(() => {
  // Whatever a failed run left behind must not hold a port for the rest of the suite.
  for (const pid of started.splice(0)) if (groupAlive(pid)) process.kill(-pid, 'SIGKILL');
});

describe('npm start', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('stops on %s sent to npm, its server with it', async (signal) => {
    const port = await freePort();
    const { child, output } = await npmStart(port);
    started.push(child.pid as number);
    const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
    child.kill(signal); // npm's own pid, as `kill` or a process manager sends it
    await exited;
    // npm may exit before the server has closed; nothing of the group may outlive it for long.
    await expect.poll(() => groupAlive(child.pid as number), { timeout: 10_000 }).toBe(false);
    expect(output()).not.toMatch(/EADDRINUSE|Error/);
    expect(await answers(port)).toBe(false);
    expect(await portIsFree(port)).toBe(true);
  });
});
