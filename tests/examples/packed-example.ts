/**
 * Runs an example app (examples/<name>) the way a user would: intab installed from the packed
 * tarball (`npm pack`, which builds lib/), the app built with its own Vite, served by `vite preview`.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const root = resolve(import.meta.dirname, '../..');
const work = resolve(root, '.tmp/examples');

/**
 * Packs intab into `.tmp/examples/pack` and returns the tarball's path (`prepack` builds lib/
 * first), or the one `INTAB_TARBALL` names.
 *
 * @example
 * const tarball = packIntab();
 */
export function packIntab(): string {
  // A tarball packed already (say while iterating on an example) can be reused.
  if (process.env.INTAB_TARBALL) return resolve(process.env.INTAB_TARBALL);
  const dest = resolve(work, 'pack');
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true }); // npm pack does not create it
  execFileSync('npm', ['pack', '--pack-destination', dest, '--silent'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = readdirSync(dest).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack wrote no tarball');
  return resolve(dest, tarball);
}

/** A copy of examples/<name> with the tarball installed and the app built; returns its folder. */
export function buildExample(name: string, tarball: string): string {
  const dir = resolve(work, name);
  rmSync(dir, { recursive: true, force: true });
  cpSync(resolve(root, 'examples', name), dir, { recursive: true });
  const npm = (...args: string[]) =>
    execFileSync('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  npm('install', tarball);
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return dir;
}

/**
 * Runs one of the example's npm scripts (its typecheck, its own tests) and returns what it printed;
 * a failing script throws with its output.
 *
 * @example
 * runScript(dir, 'typecheck');
 */
export function runScript(dir: string, script: string): string {
  try {
    return execFileSync('npm', ['run', script, '--silent'], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`npm run ${script} failed in ${dir}:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

export interface ServedExample {
  baseUrl: string;
  stop(): void;
}

/** `vite preview` in the example's folder, on a free port, once it answers. */
export async function serveExample(dir: string, port: number): Promise<ServedExample> {
  const child: ChildProcess = spawn(
    'npx',
    ['vite', 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'],
    {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
      detached: true,
    },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = () => {
    // npx starts vite as a child: end the whole group.
    if (child.pid) {
      try {
        process.kill(-child.pid);
      } catch {}
    }
  };
  const end = Date.now() + 30_000;
  while (Date.now() < end) {
    try {
      if ((await fetch(baseUrl)).ok) return { baseUrl, stop };
    } catch {}
    await sleep(200);
  }
  stop();
  throw new Error(`vite preview in ${dir} did not answer on ${baseUrl}`);
}
