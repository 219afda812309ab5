/**
 * An example app (examples/<name>) set up the way a user would: copied out of the repository, intab
 * installed from the packed tarball next to the app's own dependencies, then the app's own scripts
 * (`build`, `typecheck`, `test`) run with its own tools.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { inject } from 'vitest';
import { stalled } from './child-errors';

const root = resolve(import.meta.dirname, '../..');

/**
 * Hang guards, not budgets: an install that the network stalls, or a script that never ends, fails
 * its test with the command's name instead of holding the run (a synchronous child blocks the test
 * worker, so vitest's own timeouts cannot end it).
 */
const INSTALL_MS = 15 * 60_000;
const SCRIPT_MS = 10 * 60_000;

/**
 * Copies examples/<name> into this run's examples folder and installs the tarball into it (with
 * the app's own dependencies, from npm's cache where it has them). Returns the app's folder.
 *
 * @example
 * const dir = installExample('esbuild-app');
 * runScript(dir, 'build');
 */
export function installExample(name: string): string {
  const dir = join(inject('examplesDir'), name);
  rmSync(dir, { recursive: true, force: true });
  cpSync(resolve(root, 'examples', name), dir, {
    recursive: true,
    filter: (src) => !/[\\/](node_modules|dist)$/.test(src),
  });
  try {
    execFileSync(
      'npm',
      ['install', inject('tarball'), '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
      { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'], timeout: INSTALL_MS },
    );
  } catch (err) {
    throw new Error(`npm install failed in ${dir}: ${stalled(err, INSTALL_MS)}`);
  }
  return dir;
}

/**
 * Runs one of the example's npm scripts (its build, its typecheck, its own tests) and returns what
 * it printed; a failing script throws with its output.
 *
 * @example
 * runScript(dir, 'typecheck');
 */
export function runScript(dir: string, script: string): string {
  try {
    return execFileSync('npm', ['run', script, '--silent'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: 'pipe',
      timeout: SCRIPT_MS,
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(
      `npm run ${script} failed in ${dir}: ${stalled(err, SCRIPT_MS)}\n${e.stdout ?? ''}${e.stderr ?? ''}`,
    );
  }
}
