/**
 * `.ci/run`'s closing line counts what vitest's own tally leaves out: a test file that did not load
 * or collected no tests is a failure. Checked against real vitest runs of small fixture files, so a
 * change in vitest's JSON report shows up here.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs vitest on `files` (fixture tests, with vitest's globals) and returns the closing lines and exit codes. */
function runAndTally(files: Record<string, string>): { status: number; lines: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'intab-tally-'));
  dirs.push(dir);
  for (const [name, code] of Object.entries(files)) writeFileSync(join(dir, name), code);
  const report = join(dir, 'report.json');
  let status = 0;
  try {
    execFileSync(
      resolve(root, 'node_modules/.bin/vitest'),
      ['run', '--root', dir, '--globals', '--reporter=json', `--outputFile.json=${report}`],
      { cwd: root, stdio: 'ignore' },
    );
  } catch (err) {
    status = (err as { status: number }).status;
  }
  const out = execFileSync(
    process.execPath,
    [resolve(root, 'scripts/ci-tally.mjs'), report, String(status)],
    {
      cwd: dir,
      encoding: 'utf8',
    },
  );
  return { status, lines: out.trimEnd().split('\n') };
}

describe('the closing line of .ci/run', () => {
  it('counts passing and failing tests', () => {
    const run = runAndTally({
      'a.test.js': "it('passes', () => expect(1).toBe(1)); it('fails', () => expect(1).toBe(2));",
    });
    expect(run.status).not.toBe(0);
    expect(run.lines.at(-1)).toBe('1 passed, 1 failed');
  });

  it('counts a file that does not load and a file with no tests as failures, and names them', () => {
    const run = runAndTally({
      'ok.test.js': "it('passes', () => expect(1).toBe(1));",
      'broken.test.js': "import './missing-fixture.js';",
      'empty.test.js': "describe('nothing here', () => {});",
    });
    expect(run.status).not.toBe(0);
    expect(run.lines.at(-1)).toBe('1 passed, 2 failed');
    expect(run.lines.join('\n')).toMatch(/broken\.test\.js: .*missing-fixture/);
    expect(run.lines.join('\n')).toMatch(/empty\.test\.js: No test/);
  });

  it('counts a skipped test as not passed', () => {
    const run = runAndTally({
      'skip.test.js': "it('passes', () => expect(1).toBe(1)); it.skip('later', () => {});",
    });
    expect(run.lines.at(-1)).toBe('1 passed, 1 failed');
  });

  it('reads a clean run as clean', () => {
    const run = runAndTally({ 'ok.test.js': "it('passes', () => expect(1).toBe(1));" });
    expect(run).toEqual({ status: 0, lines: ['1 passed, 0 failed'] });
  });

  it('counts a run that failed before vitest wrote a report', () => {
    const out = execFileSync(
      process.execPath,
      [resolve(root, 'scripts/ci-tally.mjs'), join(tmpdir(), 'no-such-intab-report.json'), '2'],
      { encoding: 'utf8' },
    );
    expect(out.trimEnd().split('\n').at(-1)).toBe('0 passed, 1 failed');
  });
});
