/**
 * Once per run of the examples project: packs intab (`npm pack`, whose `prepack` builds lib/) and
 * makes an empty folder outside the repository for the example apps. Outside, so that an app finds
 * only what it installed itself (inside the checkout, Node would fall back to the repository's own
 * node_modules and hide a missing dependency). Every test file gets both through `inject`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { stalled } from './child-errors';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The packed intab tarball. */
    tarball: string;
    /** An empty folder for the example apps, removed after the run. */
    examplesDir: string;
  }
}

const root = resolve(import.meta.dirname, '../..');

export default function setup(project: TestProject): () => void {
  const work = mkdtempSync(join(tmpdir(), 'intab-examples-'));
  project.provide('tarball', packIntab(join(work, 'pack')));
  project.provide('examplesDir', work);
  return () => rmSync(work, { recursive: true, force: true });
}

const PACK_MS = 15 * 60_000;

/** The tarball `INTAB_TARBALL` names (packed already, say while iterating on an example), or a fresh one. */
function packIntab(dest: string): string {
  if (process.env.INTAB_TARBALL) return resolve(process.env.INTAB_TARBALL);
  mkdirSync(dest, { recursive: true }); // npm pack does not create it
  try {
    // A hang guard: the pack builds lib/ (prepack), minutes on a loaded machine.
    execFileSync('npm', ['pack', '--pack-destination', dest, '--silent'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: PACK_MS,
    });
  } catch (err) {
    throw new Error(`npm pack failed: ${stalled(err, PACK_MS)}`);
  }
  const tarball = readdirSync(dest).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack wrote no tarball');
  return join(dest, tarball);
}
